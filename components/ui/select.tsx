import type { ComponentPropsWithRef } from 'react';
import { type FieldProps, fieldClass } from './field';

/**
 * The one select: a styled native <select>, so phones show their own picker, it works before
 * JavaScript runs, and its label and keyboard are the browser's. Label it (a <label> around it or
 * `htmlFor`); `compact` in a filter bar.
 */
export function Select({ compact = false, className, ...props }: ComponentPropsWithRef<'select'> & FieldProps) {
  return <select className={fieldClass(compact, className)} {...props} />;
}
