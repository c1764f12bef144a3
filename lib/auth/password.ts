import { hash, verify } from '@node-rs/argon2';

// Argon2id with the library's defaults (19 MiB, 2 passes): OWASP's recommended minimum.
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Verifying against a real hash when the user is unknown keeps both paths equally slow.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$XqV8qcHzNZOazmHMkxpN5g$GCc22e9eZbLk4sZfXaNKpNhB/IUt56FTOiBlORZkUVQ';

export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  try {
    return await verify(storedHash ?? DUMMY_HASH, password);
  } catch {
    return false;
  }
}
