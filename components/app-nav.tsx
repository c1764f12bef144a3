'use client';

import { useState } from 'react';
import { NavLink } from './nav-link';
import { Button } from './ui/button';
import { Menu, MenuContent, MenuLabel, MenuSeparator, MenuSubmitItem, MenuTrigger } from './ui/menu';
import { Sheet, SheetContent, SheetTrigger } from './ui/sheet';

function NavLinks({ vertical = false }: { vertical?: boolean }) {
  return (
    <>
      <NavLink href="/" label="Queue" testId="nav-queue" block={vertical} />
      <NavLink href="/proposals" label="Proposals" testId="nav-proposals" exact block={vertical} />
      <NavLink href="/history" label="History" testId="nav-history" block={vertical} />
      <NavLink href="/contracts" label="Contracts" testId="nav-contracts" block={vertical} />
      <NavLink href="/settings" label="Settings" testId="nav-settings" block={vertical} />
    </>
  );
}

/** The main navigation: a row of links from `md` up; below, one Menu button opening it in a sheet. */
export function MainNav() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <nav aria-label="Main" className="hidden gap-1 md:flex">
        <NavLinks />
      </nav>
      <Sheet open={open} onOpenChange={setOpen}>
        <SheetTrigger asChild>
          <Button variant="secondary" size="md" data-testid="nav-menu" className="-order-1 md:hidden">
            <span aria-hidden="true">☰</span> Menu
          </Button>
        </SheetTrigger>
        <SheetContent side="left" title="Countersign" data-testid="nav-sheet" aria-describedby={undefined}>
          {/* A click on a link navigates and closes the sheet. */}
          <nav
            aria-label="Main"
            className="flex flex-col gap-1"
            onClick={(event) => {
              if ((event.target as HTMLElement).closest('a')) setOpen(false);
            }}
          >
            <NavLinks vertical />
          </nav>
        </SheetContent>
      </Sheet>
    </>
  );
}

type FormAction = (formData: FormData) => void | Promise<void>;

/**
 * Who is signed in (name · role) as a menu button; the menu holds Sign out and, quieter and
 * explained, Sign out everywhere (no longer beside the main navigation).
 */
export function AccountMenu({
  name,
  role,
  signOut,
  signOutEverywhere,
}: {
  name: string;
  role: string | null;
  signOut: FormAction;
  signOutEverywhere: FormAction;
}) {
  return (
    <Menu>
      <MenuTrigger asChild>
        <Button variant="ghost" data-testid="account-menu" className="min-w-0 max-w-48 sm:max-w-64">
          <span data-testid="signed-in-as" className="truncate">
            {name}
            {role ? <span className="hidden text-zinc-500 sm:inline"> · {role}</span> : null}
          </span>
          <span aria-hidden="true" className="text-xs">
            ▾
          </span>
        </Button>
      </MenuTrigger>
      <MenuContent data-testid="account-menu-content">
        <MenuLabel>Signed in as {name}</MenuLabel>
        <MenuSeparator />
        <form action={signOut}>
          <MenuSubmitItem data-testid="sign-out">Sign out</MenuSubmitItem>
        </form>
        <form action={signOutEverywhere}>
          <MenuSubmitItem data-testid="sign-out-everywhere" className="flex-col items-start gap-0">
            <span>Sign out everywhere</span>
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              Ends your sessions on every browser and device
            </span>
          </MenuSubmitItem>
        </form>
      </MenuContent>
    </Menu>
  );
}
