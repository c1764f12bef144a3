import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CARD_ROW, CardCell, PropertyRow, PropertyTable, Table } from './table';

describe('Table', () => {
  it('heads each column; numbers right-aligned, a heading-less column named for screen readers only; a caption names it', () => {
    render(
      <Table
        head={['Event', { label: 'Attempts', numeric: true }, { label: 'Action', hidden: true }]}
        caption="Deliveries"
        testId="t"
      >
        <tr>
          <td>sent</td>
          <td>1</td>
          <td />
        </tr>
      </Table>,
    );
    const table = screen.getByRole('table', { name: 'Deliveries' });
    const heads = within(table).getAllByRole('columnheader');
    expect(heads.map((h) => h.textContent)).toEqual(['Event', 'Attempts', 'Action']);
    expect(heads[1]!.className).toContain('text-right');
    expect(heads[2]!.querySelector('.sr-only')?.textContent).toBe('Action');
  });

  it('as cards, gives each cell its column’s label on a phone and hides a cell with nothing in it', () => {
    render(
      <Table cards head={['Status', { label: 'Action', hidden: true }]} testId="cards">
        <tr className={CARD_ROW}>
          <CardCell label="Status">dead</CardCell>
          <CardCell label="">{null}</CardCell>
        </tr>
      </Table>,
    );
    const cells = within(screen.getByTestId('cards')).getAllByRole('cell');
    expect(cells[0]!.textContent).toBe('Statusdead');
    expect(cells[0]!.className).toMatch(/^flex /);
    expect(cells[1]!.className).toMatch(/^hidden .*md:table-cell/);
  });
});

describe('PropertyTable', () => {
  it('makes each name its row’s header, so a value is read with its name', () => {
    render(
      <PropertyTable caption="Arguments" testId="args">
        <PropertyRow name="amountMinor" valueTestId="arg-amountMinor">
          150.00 EUR
        </PropertyRow>
        <PropertyRow name="orderId" dense testId="row-orderId">
          ord_1843
        </PropertyRow>
      </PropertyTable>,
    );
    const table = screen.getByRole('table', { name: 'Arguments' });
    expect(
      within(table)
        .getAllByRole('rowheader')
        .map((h) => h.textContent),
    ).toEqual(['amountMinor', 'orderId']);
    expect(screen.getByTestId('arg-amountMinor').textContent).toBe('150.00 EUR');
    expect(screen.getByTestId('row-orderId').className).not.toContain('border-t');
  });
});
