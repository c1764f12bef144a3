import { noSuchPath } from '@/lib/http/methods';

/** Any path under /api that no route serves: a JSON 404 in the API's error body, whatever the method. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = noSuchPath();
