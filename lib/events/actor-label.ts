/**
 * How an actor reads wherever one is shown (timeline, History, exports, notifications): a person by
 * name, an agent as "agent <name>", Countersign's own jobs as "Countersign". No imports: client
 * components and notifications use it too.
 */
export type ActorShown = {
  type: string;
  /** The stored id (a user id, an agent key id, a system job's id): for a hover title or its own column. */
  id: string;
  /** The bare name: the person's or agent's name, "system" for Countersign's own jobs. */
  name: string;
  /** The name in words with its kind where it is not a person: "Alice", "agent acme-support-bot", "Countersign". */
  label: string;
};

export function actorLabel(type: string, id: string, name: string | undefined): ActorShown {
  if (type === 'system') return { type, id, name: 'system', label: 'Countersign' };
  if (type === 'agent') return { type, id, name: name ?? id, label: `agent ${name ?? id}` };
  if (type === 'user') return { type, id, name: name ?? id, label: name ?? `person ${id}` };
  return { type, id, name: name ?? id, label: `${type} ${name ?? id}` };
}

/** An agent's name as a notification or a heading says it ("agent acme-support-bot"). */
export const agentLabel = (name: string) => actorLabel('agent', name, name).label;
