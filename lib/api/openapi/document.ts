import { errorBodySchema, fieldIssueSchema, repairAdviceSchema } from '@/lib/api/responses/error';
import { component, componentSchemas, refOf } from './components';
import { HEADERS, headerRefs } from './headers';
import { type Access, type ErrorCase, type Operation, type Success, TAGS } from './operation';
import { allOperations } from './operations';
import { errorsOf } from './standard-errors';

component(fieldIssueSchema, 'FieldIssue');
component(repairAdviceSchema, 'RepairAdvice');
const ERROR = refOf(component(errorBodySchema, 'Error'));

const SECURITY: Record<Access, Record<string, string[]>[]> = {
  public: [],
  agent: [{ agentKey: [] }],
  agent_or_session: [{ agentKey: [] }, { session: [] }],
  session: [{ session: [] }],
  admin: [{ session: [] }],
  command: [],
};

const pathParameters = (path: string) =>
  [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));

function queryParameters(operation: Operation) {
  return (operation.query ?? []).map(({ name, description, values }) => ({
    name,
    in: 'query',
    required: false,
    description,
    schema: values ? { type: 'string', enum: [...values] } : { type: 'string' },
  }));
}

function successContent(body: Success['body']) {
  if (!body) return undefined;
  return 'json' in body
    ? { 'application/json': { schema: refOf(body.json) } }
    : Object.fromEntries(body.text.map((type) => [type, { schema: { type: 'string' } }]));
}

const codeList = (codes: readonly string[]) => codes.map((code) => `\`${code}\``).join(', ');

function errorResponse({ codes, headers, body }: ErrorCase) {
  return {
    description: body
      ? `${body.description}${codes.length > 0 ? `; \`error.data.code\` is one of: ${codeList(codes)}` : ''}.`
      : `Error; \`error.code\` is one of: ${codeList(codes)}.`,
    headers: headerRefs(headers),
    content: { 'application/json': { schema: body ? refOf(body.json) : ERROR } },
  };
}

function responses(operation: Operation) {
  const answers: Record<string, unknown> = {};
  for (const { status, description, body, headers } of operation.success)
    answers[String(status)] = { description, headers: headerRefs(headers), content: successContent(body) };
  for (const error of errorsOf(operation)) answers[String(error.status)] = errorResponse(error);
  answers.default = {
    description:
      'Any other failure, in the same error body: `internal_error` (500, nothing was changed) or ' +
      '`systems_unavailable` (503 with `Retry-After`: a system of record could not be reached; nothing was ' +
      'changed).',
    content: { 'application/json': { schema: ERROR } },
  };
  return answers;
}

function requestBody(operation: Operation) {
  const { body, message } = operation;
  if (message)
    return {
      required: true,
      description: message.description,
      content: { [message.mediaType]: { schema: refOf(message.schema) } },
    };
  if (!body) return undefined;
  return {
    required: !body.optional,
    description:
      `JSON of at most 64 KiB${body.optional ? '; no body stands for `{}`' : ''}` +
      `${body.sameOrigin ? '. A same-origin `Origin` header is required' : ''}.`,
    content: { 'application/json': { schema: refOf(body.schema) } },
  };
}

function operationObject(operation: Operation) {
  const parameters = [...pathParameters(operation.path), ...queryParameters(operation)];
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: operation.description,
    security: SECURITY[operation.access],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body || operation.message ? { requestBody: requestBody(operation) } : {}),
    responses: responses(operation),
  };
}

function paths(operations: readonly Operation[]) {
  const byPath: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) (byPath[operation.path] ??= {})[operation.method] = operationObject(operation);
  return byPath;
}

/**
 * The OpenAPI 3.1 document of the agent, operator and admin APIs, built from the operations'
 * zod schemas (the ones the handlers answer with). Public: nothing in it is tenant-specific.
 */
export function openApiDocument(version: string) {
  return {
    openapi: '3.1.1',
    info: {
      title: 'Countersign API',
      version,
      summary: 'An approval gate between AI agents and consequential actions.',
      description:
        'The agent API (an agent key), the operator API (a dashboard session), the admin API (a session with the ' +
        'admin role), the executor (signed commands) and the MCP server. ' +
        ('Every error answers `{"error": {"kind", "code", "message", …}}`, except the MCP server\'s refusals of a ' +
          'message, which are JSON-RPC errors. ') +
        ('A method a path does not list answers 405 with `Allow`, and an unknown path under `/api` a 404 ' +
          '`not_found`, in the same error body. ') +
        "Not described here: sign-in (`/api/auth/…`, next-auth's own endpoints; see the `session` security scheme).",
      contact: { name: 'Countersign maintainers: SECURITY.md in the repository says how to report a vulnerability' },
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'The deployment that serves this document.' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths: paths(allOperations),
    components: {
      schemas: componentSchemas(),
      headers: HEADERS,
      securitySchemes: {
        agentKey: { type: 'http', scheme: 'bearer', description: 'An agent key: `Authorization: Bearer <key>`.' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'authjs.session-token',
          description:
            "The dashboard's session cookie (`__Host-authjs.session-token` over HTTPS). Sign in with next-auth's " +
            'flow: `GET /api/auth/csrf`, then `POST /api/auth/callback/credentials`.',
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
