/**
 * Starting points for a new action in the Contracts page's editor: a small example that plans
 * clean (its services at example.com until the team names its own), and an empty skeleton with
 * every required key. A components test holds the example to the definition's checks.
 */

const closed = (properties: Record<string, unknown>, required: string[]) => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

export const EXAMPLE_DEFINITION = {
  name: 'restart_service',
  title: 'Restart service',
  scope: 'deployments',
  contracts: [
    {
      version: 1,
      status: 'current',
      args: closed({ service: { type: 'string', minLength: 1, maxLength: 64 } }, ['service']),
      receipt: closed(
        {
          id: { type: 'string', minLength: 1, maxLength: 64 },
          service: { type: 'string', minLength: 1, maxLength: 64 },
        },
        ['id', 'service'],
      ),
    },
  ],
  resolve: 'https://services.example.com/actions/restart_service/resolve',
  rules: [
    {
      code: 'service_not_running',
      require: "facts.state == 'running'",
      message: 'Only a running service can be restarted.',
    },
  ],
  authority: {
    grants: [{ name: 'teams', label: 'Teams whose services it may restart' }],
    require: 'facts.team in agent.grants.teams',
  },
  summary: { template: 'Restart {service}' },
  executor: 'https://services.example.com/actions/restart_service/execute',
  receiptMatches: ['receipt.service == args.service'],
};

export const EMPTY_DEFINITION = {
  name: '',
  title: '',
  scope: '',
  contracts: [],
  resolve: '',
  rules: [],
  authority: { grants: [], require: '' },
  summary: { template: '' },
  executor: '',
};

/** A document as the editor shows it: pretty JSON, two spaces. */
export const documentText = (document: unknown) => JSON.stringify(document, null, 2);
