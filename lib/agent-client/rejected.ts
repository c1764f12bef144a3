/** A refusal with a closed code: the base of CommandRejected and RequestRejected. */
export class Rejected<Code extends string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }
}
