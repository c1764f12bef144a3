import type { ComponentPropsWithRef } from 'react';
import { fieldClass } from './field';

/** The one multi-line field, full width (a reason, a JSON body). */
export function Textarea({ className, ...props }: ComponentPropsWithRef<'textarea'>) {
  return <textarea className={fieldClass(false, className)} {...props} />;
}
