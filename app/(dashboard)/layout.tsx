import type { ReactNode } from 'react';
import { AccountMenu, MainNav } from '@/components/app-nav';
import { ExecutionsBanner } from '@/components/executions-banner';
import { ProposalFlash } from '@/components/proposal-flash';
import { Button } from '@/components/ui/button';
import { Select } from '@/components/ui/select';
import { ToastProvider } from '@/components/ui/toast';
import { executionsState } from '@/lib/commands/executions-pause';
import { dashboardContext } from '@/lib/dashboard/context';
import { getDb } from '@/lib/database';
import { chooseTenant, signOutAction, signOutEverywhereAction } from './actions';

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const context = await dashboardContext('/');
  const { operator } = context;
  const executions = context.tenantId ? await executionsState(await getDb(), context.tenantId) : undefined;
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        data-testid="skip-link"
        className={
          'sr-only focus:not-sr-only focus:fixed focus:left-4 focus:top-4 focus:z-50 focus:rounded-md ' +
          'focus:bg-white focus:px-4 focus:py-2 focus:font-medium focus:text-zinc-900 focus:shadow-lg ' +
          'focus:outline-2 focus:outline-blue-600 dark:focus:bg-zinc-900 dark:focus:text-zinc-100'
        }
      >
        Skip to main content
      </a>
      <header className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
        <div className="mx-auto flex max-w-7xl items-center gap-x-3 px-4 py-2 md:gap-x-6">
          <div className="flex min-w-0 items-center gap-2">
            <span className="font-semibold tracking-tight">Countersign</span>
            {context.tenantId && operator.memberships.length > 1 ? (
              <form action={chooseTenant} className="flex items-center gap-1">
                <label htmlFor="tenant" className="sr-only">
                  Tenant
                </label>
                <Select
                  compact
                  id="tenant"
                  name="tenantId"
                  defaultValue={context.tenantId}
                  data-testid="tenant-select"
                  className="max-w-40"
                >
                  {operator.memberships.map((m) => (
                    <option key={m.tenantId} value={m.tenantId}>
                      {m.tenantName}
                    </option>
                  ))}
                </Select>
                <Button type="submit" size="sm" data-testid="tenant-switch">
                  Switch<span className="sr-only"> tenant</span>
                </Button>
              </form>
            ) : context.tenantId ? (
              <span data-testid="tenant-name" className="truncate text-sm text-zinc-500">
                · {context.tenantName}
              </span>
            ) : null}
          </div>
          <MainNav />
          <div className="ml-auto flex min-w-0 items-center text-sm">
            <AccountMenu
              name={operator.name}
              role={context.tenantId ? context.role : null}
              signOut={signOutAction}
              signOutEverywhere={signOutEverywhereAction}
            />
          </div>
        </div>
      </header>
      {executions?.pausedAt ? (
        <ExecutionsBanner
          paused={{
            pausedAt: executions.pausedAt.toISOString(),
            pausedBy: executions.pausedBy?.name ?? null,
            reason: executions.reason,
          }}
          isAdmin={context.tenantId !== null && context.role === 'admin'}
        />
      ) : null}
      <main id="main" tabIndex={-1} className="mx-auto w-full min-w-0 max-w-7xl flex-1 px-4 py-4 focus:outline-none">
        {/* The toast region is fixed to a corner of the screen; only the message left for this page uses it. */}
        <ToastProvider>
          <ProposalFlash />
        </ToastProvider>
        {context.tenantId ? (
          children
        ) : (
          <p
            data-testid="no-membership"
            className="rounded-lg border border-zinc-200 bg-white p-6 dark:border-zinc-800 dark:bg-zinc-900"
          >
            You are signed in, but not a member of any tenant yet. Ask an administrator to grant you a role (
            <code className="font-mono">npm run cli -- grant {operator.email} &lt;tenant&gt; viewer</code>).
          </p>
        )}
      </main>
    </div>
  );
}
