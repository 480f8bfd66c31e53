// A lab's system posts each result to POST /plugin-io/api/lab-results-webhook/webhooks/lab-result
// with the header `x-lab-signature: sha256=<HMAC-SHA256 of the body under the shared key>`. A
// signed result lands as a staged instruct in the note the body names; anything else is refused
// with a clear answer and writes nothing (docs/plugins.md, "HTTP routes"). Every night at 02:00
// UTC a scheduled task says whether any result arrived in the last day, so a lab that went quiet
// is noticed (docs/plugins.md, "Scheduled tasks").
import {
  originateCommand,
  RouteHandler,
  ScheduledHandler,
  type Effect,
  type RouteDeclaration,
  type RouteRequest,
  type RouteResponse,
} from '@charta/plugin-sdk';

/** The cache key of the time (ms) the last result arrived. */
const LAST_RESULT = 'last-result-at';
const DAY_MS = 24 * 3600 * 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a lab posts: the note to file the result in, the test and its result. */
interface LabResult {
  note: string;
  test: string;
  result: string;
}

function resultOf(body: unknown): LabResult | string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body is a JSON object {note, test, result}';
  const { note, test, result } = body as Record<string, unknown>;
  if (typeof note !== 'string' || !UUID.test(note)) return 'note is the uuid of the note to file the result in';
  if (typeof test !== 'string' || test.length === 0 || test.length > 200) return 'test is the name of the test (1 to 200 characters)';
  if (typeof result !== 'string' || result.length === 0 || result.length > 2000) return 'result is the result as text (1 to 2000 characters)';
  return { note, test, result };
}

export class LabResultWebhook extends RouteHandler {
  static override readonly ROUTES: readonly RouteDeclaration[] = [
    {
      method: 'POST',
      path: '/webhooks/lab-result',
      auth: 'secret',
      signature_header: 'x-lab-signature',
      summary: 'A lab result, signed with HMAC-SHA256 of the body under LAB_WEBHOOK_KEY',
      request_schema: {
        type: 'object',
        required: ['note', 'test', 'result'],
        properties: { note: { type: 'string', format: 'uuid' }, test: { type: 'string' }, result: { type: 'string' } },
      },
    },
  ];

  override async handle(request: RouteRequest): Promise<RouteResponse> {
    // The instance computes the HMAC and compares in constant time; the key never leaves it.
    if (!(await this.verifySignature({ secret: 'LAB_WEBHOOK_KEY', prefix: 'sha256=' }))) {
      this.log.warning('a lab result with a missing or wrong signature was refused');
      return { status: 401, body: { error: 'missing or wrong x-lab-signature' } };
    }
    const lab = resultOf(request.body);
    if (typeof lab === 'string') return { status: 400, body: { error: lab } };
    this.log.info(`lab result for note ${lab.note}: ${lab.test}`);
    await this.cache.set(LAST_RESULT, Date.now());
    return {
      status: 202,
      body: { accepted: true },
      effects: [originateCommand('instruct', lab.note, { comment: `Lab result received: ${lab.test}: ${lab.result}` })],
    };
  }
}

export class NightlyLabCheck extends ScheduledHandler {
  static override readonly SCHEDULE = '0 2 * * *';

  override async compute(): Promise<Effect[]> {
    const { tick } = this.tick;
    const last = await this.cache.get(LAST_RESULT);
    if (typeof last !== 'number' || Date.parse(tick) - last > DAY_MS) {
      this.log.warning(`no lab result in the day before ${tick}${typeof last === 'number' ? `; the last came at ${new Date(last).toISOString()}` : ''}`);
    } else {
      this.log.info(`lab results are arriving; the last came at ${new Date(last).toISOString()}`);
    }
    return [];
  }
}
