import type { ActionFigures, ApproverFigures, ChannelFigures, DecisionFigures } from '@/lib/oversight/figures';
import { CHANNEL_WORDS, durationWords, percentWords } from '@/lib/shared/oversight-words';
import { Badge } from './ui/badge';
import { CARD_ROW, CardCell, Table } from './ui/table';

const FIGURE_HEAD = ['Decisions', 'Approval rate', 'Waiting → decided p50', 'p95', 'Dwell p50', 'Dwell p10'] as const;

function FigureCells({ figures }: { figures: DecisionFigures }) {
  return (
    <>
      <CardCell label={FIGURE_HEAD[0]}>{figures.decisions}</CardCell>
      <CardCell label={FIGURE_HEAD[1]}>{figures.decisions === 0 ? '—' : percentWords(figures.approvalRate)}</CardCell>
      <CardCell label={FIGURE_HEAD[2]}>{durationWords(figures.waitP50Ms)}</CardCell>
      <CardCell label={FIGURE_HEAD[3]}>{durationWords(figures.waitP95Ms)}</CardCell>
      <CardCell label={FIGURE_HEAD[4]}>{durationWords(figures.dwellP50Ms)}</CardCell>
      <CardCell label={FIGURE_HEAD[5]}>{durationWords(figures.dwellP10Ms)}</CardCell>
    </>
  );
}

export function ApproverTable({ rows }: { rows: ApproverFigures[] }) {
  return (
    <Table head={['Approver', ...FIGURE_HEAD]} testId="oversight-approvers" cards>
      {rows.map((row) => (
        <tr key={row.userId} className={CARD_ROW} data-testid="oversight-approver-row">
          <CardCell label="Approver">
            <span className="font-medium">{row.name}</span>
            {row.rubberStamp ? (
              <Badge tone="warning" className="ml-2" data-testid="oversight-rubber-stamp">
                Looks like rubber-stamping
              </Badge>
            ) : null}
          </CardCell>
          <FigureCells figures={row} />
        </tr>
      ))}
    </Table>
  );
}

export function ActionTable({ rows }: { rows: ActionFigures[] }) {
  return (
    <Table head={['Action', ...FIGURE_HEAD, 'Expired', 'Stale']} testId="oversight-actions" cards>
      {rows.map((row) => (
        <tr key={row.action} className={CARD_ROW}>
          <CardCell label="Action" mono>
            {row.action}
          </CardCell>
          <FigureCells figures={row} />
          <CardCell label="Expired">{row.expired}</CardCell>
          <CardCell label="Stale">{row.stale}</CardCell>
        </tr>
      ))}
    </Table>
  );
}

export function ChannelTable({ rows }: { rows: ChannelFigures[] }) {
  return (
    <Table head={['What brought the person', ...FIGURE_HEAD]} testId="oversight-channels" cards>
      {rows.map((row) => (
        <tr key={row.channel} className={CARD_ROW}>
          <CardCell label="Channel">{CHANNEL_WORDS[row.channel] ?? row.channel}</CardCell>
          <FigureCells figures={row} />
        </tr>
      ))}
    </Table>
  );
}
