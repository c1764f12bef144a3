/** Intake reads its envelope with the one JSON body reader every route uses (lib/http/body.ts). */
export { MAX_BODY_BYTES, MAX_DEPTH, readJsonBody } from '@/lib/http/body';
