/** What an agent's name may be (set by an administrator): also what the queue's agent filter accepts. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
