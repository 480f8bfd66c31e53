// The chart side panel (docs/console.md, "The chart panel"): the patient's active conditions,
// active medications, open goals, banner alerts and the metadata plugins keep on them, from the
// chart endpoints and the metadata list (docs/api.md, "The patient's chart", "Patient metadata").
// `version` changes after each commit or entry in error, which reloads it. Beside the note on a
// wide screen (sticky, note.css); on a phone, above the note, folded to a line of counts until
// "Show" opens it (docs/console.md, "The chart panel").
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { apiAs, messageOf } from '../api.ts';
import type { Coding, Page } from '../clinical/types.ts';
import { codingText } from '../clinical/format.ts';
import { Alert } from '../alert.tsx';
import { useNarrow } from '../narrow.ts';
import './chart.css';
import { Icon, RefreshCw } from '../icon.tsx';

interface Condition {
  id: string;
  coding: Coding;
  onset?: string | null;
}
interface Medication {
  id: string;
  coding: Coding;
  sig?: string | null;
}
interface Goal {
  id: string;
  statement: string;
  due_date?: string | null;
  achievement_status?: string | null;
  priority?: string | null;
}
interface BannerAlert {
  plugin: string;
  key: string;
  narrative: string;
  intent: string;
}

interface Metadata {
  namespace: string;
  key: string;
  value: string;
}

interface Chart {
  conditions: Page<Condition>;
  medications: Page<Medication>;
  goals: Page<Goal>;
  alerts: Page<BannerAlert>;
  metadata: Page<Metadata>;
}

const coded = (c: Coding) => `${c.display ?? c.code}`;

export function ChartPanel({ patientKey, version }: { patientKey: string; version: number }) {
  const [chart, setChart] = useState<Chart | undefined>();
  const [error, setError] = useState<string | undefined>();
  // Plugins add banner alerts and metadata after a commit, asynchronously: "Refresh chart" reads it again.
  const [refreshed, setRefreshed] = useState(0);
  const narrow = useNarrow();
  const [unfolded, setUnfolded] = useState(false);
  const shown = !narrow || unfolded;

  useEffect(() => {
    let live = true;
    Promise.all([
      apiAs<Page<Condition>>((charta) => charta.patients.conditions(patientKey, { limit: 100 })),
      apiAs<Page<Medication>>((charta) => charta.patients.medications(patientKey, { limit: 100 })),
      apiAs<Page<Goal>>((charta) => charta.patients.goals(patientKey, { limit: 100 })),
      apiAs<Page<BannerAlert>>((charta) => charta.patients.bannerAlerts(patientKey, { limit: 100 })),
      apiAs<Page<Metadata>>((charta) => charta.patients.metadata(patientKey, { limit: 100 })),
    ]).then(
      ([conditions, medications, goals, alerts, metadata]) => {
        if (!live) return;
        setChart({ conditions, medications, goals, alerts, metadata });
        setError(undefined);
      },
      (err) => live && setError(messageOf(err)),
    );
    return () => {
      live = false;
    };
  }, [patientKey, version, refreshed]);

  return (
    <aside class="chart panel" aria-labelledby="chart-title">
      <div class="chart-head">
        <h2 id="chart-title">Chart</h2>
        {narrow && (
          <button type="button" class="secondary small" aria-expanded={unfolded} aria-controls="chart-body" onClick={() => setUnfolded(!unfolded)}>
            {unfolded ? 'Hide' : 'Show'}
            <span class="sr-only"> the chart</span>
          </button>
        )}
        <button type="button" class="quiet small" onClick={() => setRefreshed(refreshed + 1)}>
          <Icon node={RefreshCw} />
          Refresh chart
        </button>
      </div>
      {narrow && chart !== undefined && <p class="chart-counts">{countsOf(chart)}</p>}
      <Alert message={error} />
      {chart === undefined && error === undefined && <p>Loading the chart…</p>}
      {chart !== undefined && (
        <div id="chart-body" hidden={!shown}>
          {chart.alerts.results.length > 0 && (
            <section aria-labelledby="alerts-title">
              <h3 id="alerts-title">Banner alerts</h3>
              <ul class="alerts">
                {chart.alerts.results.map((a) => (
                  <li key={`${a.plugin}/${a.key}`} class={`alert intent-${a.intent}`}>
                    {a.narrative} <span class="meta">({a.plugin})</span>
                  </li>
                ))}
              </ul>
            </section>
          )}
          <ChartList
            id="conditions"
            title="Active conditions"
            empty="No active condition."
            page={chart.conditions}
            item={(c) => (
              <>
                {coded(c.coding)} <span class="meta">{codingText(c.coding)}</span>
                {c.onset ? <span class="meta"> · onset {c.onset}</span> : null}
              </>
            )}
          />
          <ChartList
            id="medications"
            title="Active medications"
            empty="No active medication."
            page={chart.medications}
            item={(m) => (
              <>
                {coded(m.coding)} {m.sig ? <span class="meta">· {m.sig}</span> : null}
              </>
            )}
          />
          <ChartList
            id="goals"
            title="Open goals"
            empty="No open goal."
            page={chart.goals}
            item={(g) => (
              <>
                {g.statement}
                {g.due_date ? <span class="meta"> · due {g.due_date}</span> : null}
                {g.achievement_status ? <span class="meta"> · {g.achievement_status}</span> : null}
              </>
            )}
          />
          <ChartList
            id="metadata"
            title="Plugin metadata"
            empty="No metadata."
            page={{ ...chart.metadata, results: chart.metadata.results.map((m) => ({ ...m, id: `${m.namespace}/${m.key}` })) }}
            item={(m) => (
              <>
                <span class="meta">{m.namespace} · </span>
                {m.key}: {m.value}
              </>
            )}
          />
          {chart.alerts.results.length === 0 && <p class="meta">No banner alert.</p>}
        </div>
      )}
    </aside>
  );
}

const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The chart folded to one line: `2 conditions · 1 medication · 0 goals · 1 alert`. */
function countsOf(chart: Chart): string {
  return [
    counted(chart.conditions.count, 'condition', 'conditions'),
    counted(chart.medications.count, 'medication', 'medications'),
    counted(chart.goals.count, 'goal', 'goals'),
    counted(chart.alerts.count, 'alert', 'alerts'),
  ].join(' · ');
}

/**
 * A page's content with the patient's chart: beside it on a wide screen, above it (folded) on a
 * phone, first in the reading order there too.
 */
export function WithChart({ patientKey, version, children }: { patientKey: string | undefined; version: number; children: ComponentChildren }) {
  const narrow = useNarrow();
  const chart = patientKey === undefined ? null : <ChartPanel patientKey={patientKey} version={version} />;
  return (
    <div class="with-chart">
      {narrow && chart}
      <div class="content">{children}</div>
      {!narrow && chart}
    </div>
  );
}

function ChartList<T extends { id: string }>(props: { id: string; title: string; empty: string; page: Page<T>; item: (entry: T) => ComponentChildren }) {
  const { page } = props;
  return (
    <section aria-labelledby={`${props.id}-title`} class={props.id}>
      <h3 id={`${props.id}-title`}>
        {props.title} ({page.count})
      </h3>
      {page.results.length === 0 ? (
        <p class="meta">{props.empty}</p>
      ) : (
        <ul>
          {page.results.map((e) => (
            <li key={e.id}>{props.item(e)}</li>
          ))}
        </ul>
      )}
      {page.count > page.results.length && <p class="meta">Showing the first {page.results.length}.</p>}
    </section>
  );
}
