// Metrics under `charta-server start --workers N` (docs/configuration.md, "Multi-process serving";
// docs/operations.md, "Monitoring"). The workers share one port, so a scraper cannot pick one:
// each worker keeps its own metrics, every series labelled `worker="<slot>"`, and a scrape,
// whichever worker it reaches, answers all of them. That worker asks the primary, which gathers
// every worker's registries over node:cluster's channel with prom-client's AggregatorRegistry
// (series of different workers never merge: their `worker` labels differ).
import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { Metrics } from './registry.ts';

const ASK = 'charta:metrics-ask';
const ANSWER = 'charta:metrics-answer';
/** How long a worker waits for the primary's gathering (prom-client gives each worker 5 s). */
const ASK_TIMEOUT_MS = 8000;

interface Message {
  type?: string;
  id?: number;
  text?: string;
  error?: string;
}

/** The primary: answers a worker's ask with the metrics of every worker. */
export function gatherForWorkers(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: Message) => {
    if (message?.type !== ASK) return;
    const answer = (reply: Omit<Message, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...reply });
    };
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (err: Error) => answer({ error: err.message }),
    );
  });
}

/**
 * A worker, as soon as it starts: prom-client's side of the gathering answers the primary (with
 * nothing until `joinWorkers` names this worker's registries), so a worker still starting never
 * makes a scrape wait for it.
 */
export function answerPrimary(): void {
  new AggregatorRegistry();
}

/** A worker whose app is built: its series labelled with its slot, and its scrapes answered with every worker's. */
export function joinWorkers(metrics: Metrics, slot: number): void {
  metrics.label({ worker: String(slot) });
  AggregatorRegistry.setRegistries(metrics.registries());
  const waiting = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
  let next = 1;
  process.on('message', (message: Message) => {
    if (message?.type !== ANSWER || message.id === undefined) return;
    const ask = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.text !== undefined) ask?.resolve(message.text);
    else ask?.reject(new Error(message.error ?? 'no metrics'));
  });
  const ask = () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the primary did not answer'));
      }, ASK_TIMEOUT_MS);
      waiting.set(id, {
        resolve: (text) => (clearTimeout(timer), resolve(text)),
        reject: (err) => (clearTimeout(timer), reject(err)),
      });
      process.send!({ type: ASK, id });
    });
  // Should the primary not answer (it is stopping), this worker's own metrics, still labelled.
  metrics.gather = () => ask().catch(() => metrics.local());
}
