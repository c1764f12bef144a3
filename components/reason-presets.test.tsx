import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { ReasonPresets } from './reason-presets';

const PRESETS = ['Amount looks wrong', 'Wrong order', 'Needs more evidence'];

function Picker({ testId = (index: number) => `preset-${index}` }: { testId?: (index: number) => string }) {
  const [reason, setReason] = useState('');
  return (
    <>
      <ReasonPresets presets={PRESETS} reason={reason} onPick={setReason} testId={testId} />
      <textarea aria-label="Reason" value={reason} onChange={(e) => setReason(e.target.value)} />
    </>
  );
}

describe('ReasonPresets', () => {
  it('is a named group of plain buttons, one per preset, each carrying its preset and test id', () => {
    render(
      <form>
        <Picker />
      </form>,
    );
    const group = screen.getByRole('group', { name: 'Preset reasons' });
    const buttons = Array.from(group.querySelectorAll('button'));
    expect(buttons.map((b) => b.textContent)).toEqual(PRESETS);
    expect(buttons.map((b) => b.getAttribute('type'))).toEqual(['button', 'button', 'button']);
    expect(buttons.map((b) => b.dataset.testid)).toEqual(['preset-0', 'preset-1', 'preset-2']);
    expect(buttons[2]!.dataset.preset).toBe('Needs more evidence');
  });

  it('picking one fills the reason and shows it pressed; typing something else releases it', () => {
    render(<Picker />);
    const evidence = screen.getByRole('button', { name: 'Needs more evidence' });
    expect(evidence.getAttribute('aria-pressed')).toBe('false');
    fireEvent.click(evidence);
    expect((screen.getByLabelText('Reason') as HTMLTextAreaElement).value).toBe('Needs more evidence');
    expect(evidence.getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('button', { name: 'Wrong order' }).getAttribute('aria-pressed')).toBe('false');
    fireEvent.change(screen.getByLabelText('Reason'), { target: { value: 'Needs more evidence, and a ticket' } });
    expect(evidence.getAttribute('aria-pressed')).toBe('false');
  });

  it('gives every chip the same test id when asked (the proposal page finds them as one list)', () => {
    render(<Picker testId={() => 'reject-preset'} />);
    expect(screen.getAllByTestId('reject-preset')).toHaveLength(3);
  });
});
