import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Input } from './input';
import { Select } from './select';
import { Textarea } from './textarea';

describe('Input, Select, Textarea', () => {
  it('are the native elements, so labels, forms, phone pickers and autofill work as the browser does', () => {
    render(
      <form aria-label="Filters">
        <label>
          Email <Input name="email" type="email" required />
        </label>
        <label>
          Role{' '}
          <Select name="role" defaultValue="approver">
            <option value="viewer">viewer</option>
            <option value="approver">approver</option>
          </Select>
        </label>
        <label>
          Reason <Textarea name="reason" maxLength={500} />
        </label>
      </form>,
    );
    const email = screen.getByLabelText('Email') as HTMLInputElement;
    const role = screen.getByLabelText('Role') as HTMLSelectElement;
    const reason = screen.getByLabelText('Reason') as HTMLTextAreaElement;
    expect(email.tagName).toBe('INPUT');
    expect(email.required).toBe(true);
    expect(role.tagName).toBe('SELECT');
    expect(role.value).toBe('approver');
    expect(reason.tagName).toBe('TEXTAREA');
    expect(reason.maxLength).toBe(500);
    expect(new FormData(screen.getByRole('form') as HTMLFormElement).get('role')).toBe('approver');
  });

  it('share one look: full width in a form, inline when compact; the caller’s classes come last', () => {
    render(
      <>
        <Input data-testid="block" className="font-mono" />
        <Select compact data-testid="compact" />
        <Textarea data-testid="area" />
      </>,
    );
    const block = screen.getByTestId('block').className;
    expect(block).toContain('w-full');
    expect(block).toContain('focus-visible:outline-2');
    expect(block.endsWith('font-mono')).toBe(true);
    expect(screen.getByTestId('compact').className).not.toContain('w-full');
    expect(screen.getByTestId('compact').className).toContain('px-2');
    expect(screen.getByTestId('area').className).toContain('w-full');
  });

  it('lets a caller’s width replace the full width (joined classes would otherwise leave it to the stylesheet’s order)', () => {
    render(
      <>
        <Input data-testid="narrow" className="mt-1 w-32 font-mono" />
        <Select data-testid="responsive" className="sm:w-48" />
        <Textarea data-testid="wide" className="max-h-40" />
      </>,
    );
    expect(screen.getByTestId('narrow').className.split(' ')).not.toContain('w-full');
    expect(screen.getByTestId('narrow').className).toContain('w-32');
    expect(screen.getByTestId('responsive').className.split(' ')).not.toContain('w-full');
    expect(screen.getByTestId('wide').className.split(' ')).toContain('w-full');
  });
});
