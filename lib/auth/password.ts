import { hash, verify } from '@node-rs/argon2';
import { MAX_PASSWORD } from './password-rules';

export { MAX_PASSWORD };

export class PasswordTooLong extends Error {
  constructor() {
    super(`A password is at most ${MAX_PASSWORD} characters.`);
    this.name = 'PasswordTooLong';
  }
}

// Argon2id with the library's defaults (19 MiB, 2 passes): OWASP's recommended minimum.
export function hashPassword(password: string): Promise<string> {
  if (password.length > MAX_PASSWORD) return Promise.reject(new PasswordTooLong());
  return hash(password);
}

// Verifying against a real hash when the user is unknown keeps both paths equally slow.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$XqV8qcHzNZOazmHMkxpN5g$GCc22e9eZbLk4sZfXaNKpNhB/IUt56FTOiBlORZkUVQ';

/** An over-long password is wrong without being hashed. */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD) return false;
  try {
    return await verify(storedHash ?? DUMMY_HASH, password);
  } catch {
    return false;
  }
}
