/** A refusal of an account or membership change, in words for whoever asked (the CLI prints it). */
export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}

/**
 * A membership change refused by a rule of the tenant's membership: nobody by that id in the
 * tenant (`not_member`), the last admin (`last_admin`), someone who already belongs (`already_member`), an account
 * confined to another tenant until its address is proven (`address_unverified`).
 */
export class MembershipError extends AdminError {
  constructor(
    readonly code: 'not_member' | 'last_admin' | 'already_member' | 'address_unverified',
    message: string,
  ) {
    super(message);
    this.name = 'MembershipError';
  }
}
