import { CopyButton } from './copy-button';

/** A payload hash: short, full on hover, with a copy button. */
export function Hash({ value, testId = 'payload-hash' }: { value: string; testId?: string }) {
  const hex = value.replace(/^sha256:/, '');
  const short = `sha256:${hex.slice(0, 8)}…${hex.slice(-4)}`;
  return (
    <span className="inline-flex items-center gap-2">
      <code data-testid={testId} data-full={value} title={value} className="font-mono text-sm">
        {short}
      </code>
      <CopyButton value={value} label="Copy the full payload hash" testId={`${testId}-copy`} />
    </span>
  );
}
