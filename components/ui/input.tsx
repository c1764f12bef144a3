import type { ComponentPropsWithRef } from 'react';
import { type FieldProps, fieldClass } from './field';

/** The one text field: full width in a form, or `compact` in a filter bar. */
export function Input({ compact = false, className, ...props }: ComponentPropsWithRef<'input'> & FieldProps) {
  return <input className={fieldClass(compact, className)} {...props} />;
}
