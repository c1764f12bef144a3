'use client';

import { Button } from './ui/button';

/**
 * The preset reasons for a rejection (lib/decisions/requests.ts `rejectPresets`), as pills: picking
 * one fills the reason, which stays editable; the one matching the reason shows pressed.
 */
export function ReasonPresets({
  presets,
  reason,
  onPick,
  testId,
}: {
  presets: readonly string[];
  reason: string;
  onPick: (preset: string) => void;
  testId: (index: number) => string;
}) {
  return (
    <div role="group" aria-label="Preset reasons" className="flex flex-wrap gap-2">
      {presets.map((preset, index) => (
        <Button
          key={preset}
          size="chip"
          data-testid={testId(index)}
          data-preset={preset}
          aria-pressed={reason === preset}
          onClick={() => onPick(preset)}
        >
          {preset}
        </Button>
      ))}
    </div>
  );
}
