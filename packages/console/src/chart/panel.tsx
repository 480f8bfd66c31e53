// The chart side panel (docs/console.md, "The chart panel"): the patient's active conditions,
// active medications, open goals, banner alerts and the metadata plugins keep on them, from the
// chart endpoints and the metadata list (docs/api.md, "The patient's chart", "Patient metadata").
// `version` changes after each commit or entry in error, which reloads it.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { apiAs, messageOf } from '../api.ts';
import type { Coding, Page } from '../clinical/types.ts';
import { codingText } from '../clinical/format.ts';
import { Alert } from '../alert.tsx';

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
        <button type="button" class="secondary small" onClick={() => setRefreshed(refreshed + 1)}>
          Refresh chart
        </button>
      </div>
      <Alert message={error} />
      {chart === undefined && error === undefined && <p>Loading the chart…</p>}
      {chart !== undefined && (
        <>
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
        </>
      )}
    </aside>
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
