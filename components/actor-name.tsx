import { PayloadText } from './payload-text';
import { Tooltip } from './ui/tooltip';

/**
 * A person or agent by name, with their id in a tooltip on hover and on keyboard focus (the id
 * stays out of the text, which reads by name; `data-actor-id` carries it for tools and tests).
 */
export function ActorName({ id, label, testId }: { id: string; label: string; testId: string }) {
  return (
    <Tooltip content={<span className="font-mono">{id}</span>}>
      <span
        tabIndex={0}
        data-testid={testId}
        data-actor-id={id}
        className="rounded focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
      >
        <PayloadText value={label} mono={false} />
      </span>
    </Tooltip>
  );
}
