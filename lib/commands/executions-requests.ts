import { noFields, type RequestBody } from '@/lib/input/request-body';
import { type PauseInput, pauseInput } from './executions-pause';

/** The request bodies of the emergency stop (`/api/v1/admin/executions/…`). */

/** `POST …/pause`: an optional `{reason}`; no body stands for `{}`. */
export const executionsPauseRequest: RequestBody<PauseInput> = {
  schema: pauseInput,
  code: 'invalid_pause',
  message: 'The pause is not valid: send {} or {"reason": "…"} (1–500 characters).',
  whenAbsent: {},
};

/** `POST …/resume`. */
export const executionsResumeRequest = noFields('invalid_resume', 'Resuming takes no fields; send {} or no body.');
