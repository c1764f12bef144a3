import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkDefinition } from '@/lib/definitions/parse';
import { serveJson as serve } from '@/test/fetch-stub';
import { DefinitionEditor } from './action-definition-editor';
import { documentText, EXAMPLE_DEFINITION } from './action-examples';

const router = vi.hoisted(() => ({ refresh: vi.fn(), push: vi.fn() }));
vi.mock('next/navigation', () => ({ useRouter: () => router }));

const document = { name: 'restart_service', title: 'Restart service' };

const validPlan = {
  valid: true,
  name: 'restart_service',
  currentVersion: 3,
  unchanged: false,
  changes: ['Contract v1: argument "reason" added, required.'],
  breaking: ['Contract v1: "reason" is required now.'],
  warnings: ['Contract v1\'s arguments, at reason: "maxLength" is not enforced while the model writes the arguments.'],
  replay: { proposals: 12, invalid: 1, refused: [{ code: 'service_frozen', count: 2 }] },
  lines: [],
};

function editor(text = JSON.stringify(document)) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { mutations: { retry: false } } })}>
      <DefinitionEditor initial={text} label="Next version" />
    </QueryClientProvider>,
  );
}

async function planned() {
  const sent = serve({ status: 200, body: validPlan });
  editor();
  fireEvent.click(screen.getByTestId('definition-plan-run'));
  await screen.findByTestId('definition-publish');
  return sent;
}

const publishWith = (note: string) => {
  fireEvent.change(screen.getByTestId('definition-note'), { target: { value: note } });
  fireEvent.click(screen.getByTestId('definition-publish'));
};

beforeEach(() => router.refresh.mockReset());
afterEach(() => vi.unstubAllGlobals());

describe('DefinitionEditor', () => {
  it('says a draft that is not JSON is not, and sends nothing', () => {
    const sent = serve({ status: 200, body: validPlan });
    editor('{"name": ');
    fireEvent.click(screen.getByTestId('definition-plan-run'));
    expect(screen.getByTestId('definition-local-error').textContent).toContain('The draft is not JSON');
    expect(sent).toEqual([]);
  });

  it('shows a plan’s problems by path and offers no publishing', async () => {
    const sent = serve({
      status: 200,
      body: {
        valid: false,
        problems: [{ path: 'rules.0.require', message: 'Rule x’s require: it does not parse.' }],
        warnings: [],
        lines: [],
      },
    });
    editor();
    fireEvent.keyDown(screen.getByTestId('definition-text'), { key: 'Enter', ctrlKey: true });
    const plan = await screen.findByTestId('definition-plan');
    expect(plan.dataset.valid).toBe('false');
    expect(screen.getByTestId('definition-problem').textContent).toBe(
      'rules.0.require: Rule x’s require: it does not parse.',
    );
    expect(screen.queryByTestId('definition-publish')).toBeNull();
    expect(sent).toEqual([{ url: '/api/v1/admin/actions/plan', method: 'POST', body: { document } }]);
  });

  it('sets breaking changes apart, and publishes with a note against the version the plan saw', async () => {
    await planned();
    expect(screen.getByTestId('definition-plan-head').textContent).toBe('restart_service v3 → v4');
    expect(screen.getByTestId('definition-plan-breaking').textContent).toContain('"reason" is required now.');
    expect(screen.getByTestId('definition-plan-warnings').textContent).toContain('maxLength');
    // The recent proposals replayed: how many pass, and what refuses the others.
    const replay = screen.getByTestId('definition-plan-replay').textContent;
    expect(replay).toContain('The newest 12 proposal(s), replayed with the facts read then: 9 pass.');
    expect(replay).toContain('2 refused by rule service_frozen.');
    const publish = screen.getByTestId('definition-publish') as HTMLButtonElement;
    expect(publish.textContent).toBe('Publish restart_service v4');
    expect(publish.disabled).toBe(true);
    const sent = serve({
      status: 201,
      body: { name: 'restart_service', version: 4, documentHash: 'sha256:00', unchanged: false },
    });
    publishWith('Reason required from now on');
    expect((await screen.findByTestId('definition-published')).textContent).toBe('Published restart_service v4.');
    expect(sent).toEqual([
      {
        url: '/api/v1/admin/actions',
        method: 'PUT',
        body: { document, note: 'Reason required from now on', baseVersion: 3 },
      },
    ]);
    expect(router.refresh).toHaveBeenCalled();
    expect(screen.queryByTestId('definition-publish')).toBeNull();
  });

  it.each([
    {
      what: 'someone published meanwhile (409): plan again, Publish gone',
      status: 409,
      error: { code: 'stale_definition', message: 'restart_service is at v4 now.', currentVersion: 4 },
      says: 'Not published: someone published v4 meanwhile. Plan again to see the change against it.',
      publishable: false,
    },
    {
      what: 'a refused origin (422): the problem by its path',
      status: 422,
      error: {
        code: 'invalid_definition',
        message: 'The definition is not valid.',
        problems: [{ path: 'executor', message: '"executor" names an origin the operator does not allow.' }],
      },
      says: 'executor: "executor" names an origin the operator does not allow.',
      publishable: true,
    },
  ])('shows a refused publish clearly: $what', async ({ status, error, says, publishable }) => {
    await planned();
    serve({ status, body: { error } });
    publishWith('Why not');
    const refusal = await screen.findByTestId('definition-publish-error');
    expect(refusal.dataset.code).toBe(error.code);
    expect(refusal.textContent).toContain(says);
    expect(screen.queryByTestId('definition-publish') !== null).toBe(publishable);
    expect(router.refresh).not.toHaveBeenCalled();
  });

  it('makes the plan old on any edit: Publish waits for the next plan', async () => {
    await planned();
    fireEvent.change(screen.getByTestId('definition-text'), { target: { value: '{}' } });
    expect(screen.queryByTestId('definition-plan')).toBeNull();
    expect(screen.queryByTestId('definition-publish')).toBeNull();
  });

  it('starts a new action from an example the definition’s checks accept', () => {
    expect(checkDefinition(JSON.parse(documentText(EXAMPLE_DEFINITION))).ok).toBe(true);
  });
});
