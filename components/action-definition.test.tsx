import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Definition } from '@/lib/definitions/document';
import { ActionDefinition, type ActionDefinitionView } from './action-definition';
import { EXAMPLE_DEFINITION } from './action-examples';

const version = (n: number, note: string) => ({
  version: n,
  documentHash: `sha256:${String(n).repeat(64)}`,
  note,
  publishedAt: '2026-12-02T19:00:00.000Z',
  publishedBy: { id: 'usr_carol', label: 'Carol' },
});

const view: ActionDefinitionView = {
  name: 'restart_service',
  document: EXAMPLE_DEFINITION as Definition,
  versions: [version(2, 'Clearer refusal'), version(1, 'First')],
};

describe('ActionDefinition', () => {
  it('shows the current version, who published it and why, its services, rules and authority', () => {
    render(<ActionDefinition view={view} />);
    const current = screen.getByTestId('definition-current');
    expect(current.textContent).toContain('Definition v2');
    expect(within(current).getByTestId('definition-publisher').textContent).toBe('Carol');
    expect(within(current).getByTestId('definition-note').textContent).toBe('Why: “Clearer refusal”');
    expect(within(current).getByTestId('definition-hash').getAttribute('title')).toBe(view.versions[0]!.documentHash);
    expect(screen.getByTestId('definition-resolve').textContent).toBe(EXAMPLE_DEFINITION.resolve);
    expect(screen.getByTestId('definition-executor').textContent).toBe(EXAMPLE_DEFINITION.executor);
    const rule = screen.getByTestId('definition-rule');
    expect(rule.dataset.code).toBe('service_not_running');
    expect(rule.textContent).toContain("facts.state == 'running'");
    expect(screen.getByTestId('definition-authority').textContent).toContain('facts.team in agent.grants.teams');
  });

  it('lists the earlier versions in a disclosure, and says when there are none', () => {
    const { unmount } = render(<ActionDefinition view={view} />);
    const earlier = screen.getAllByTestId('definition-version');
    expect(earlier.map((li) => li.dataset.version)).toEqual(['1']);
    expect(earlier[0]!.textContent).toContain('First');
    expect(screen.getByTestId('definition-versions-restart_service').tagName).toBe('DETAILS');
    unmount();
    render(<ActionDefinition view={{ ...view, versions: [version(1, 'First')] }} />);
    expect(screen.getByTestId('definition-versions-restart_service').textContent).toBe('No earlier versions.');
  });
});
