/** Password lengths, for the server and the browser alike (no hashing here). */

/** The shortest password a person may choose (the CLI's rule too). */
export const MIN_PASSWORD = 12;

/** The longest password accepted anywhere: Argon2 over a longer one is work an attacker chooses. */
export const MAX_PASSWORD = 256;
