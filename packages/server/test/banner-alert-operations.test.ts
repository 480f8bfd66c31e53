// The banner alert operations (chart/add-banner-alert.ts, chart/remove-banner-alert.ts; docs/api.md,
// "Banner alerts"), called as the ADD_BANNER_ALERT and REMOVE_BANNER_ALERT effects call them, on
// each engine: each write has its audit row (`banner_alert.added`, `banner_alert.removed`) by the
// acting user; adding the same key again replaces the alert and keeps its created_at; an
// Idempotency-Key applies one add once; bad input is a 400 naming each bad field, an unknown
// patient a 400 `patient_does_not_exist`, an API key a 403, and none of them writes anything.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import type { Ctx } from '../src/context.ts';
import { CLINICAL_SCOPE } from '../src/auth/acting-staff.ts';
import { Problem } from '../src/http/problem.ts';
import { addBannerAlert, type AddBannerAlert } from '../src/chart/add-banner-alert.ts';
import { removeBannerAlert } from '../src/chart/remove-banner-alert.ts';

const ACTOR = 'plugin:vitals-alert';

for (const engine of ENGINES) {
  describe(`banner alert operations (${engine})`, () => {
    let api: Instance;
    let ctx: Ctx;
    let patient = '';

    const alert = (over: Partial<AddBannerAlert> = {}): AddBannerAlert => ({
      patient,
      plugin: 'vitals-alert',
      key: 'bp',
      narrative: 'Blood pressure high',
      placement: ['chart', 'timeline'],
      intent: 'warning',
      ...over,
    });
    /** The audit rows of banner alerts, oldest first. */
    const audits = () =>
      api.storage.db
        .selectFrom('audit_events')
        .select(['action', 'entity_type', 'entity_id', 'actor', 'credential', 'before', 'after', 'request_id'])
        .where('entity_type', '=', 'banner_alert')
        .orderBy('id')
        .execute();
    const alerts = () => api.storage.db.selectFrom('banner_alerts').selectAll().orderBy('key').execute();
    /** Runs `write`, which must fail with the problem `code` (status `status`) and write nothing; answers the problem. */
    const refused = async (write: () => Promise<unknown>, status: number, code: string): Promise<Problem> => {
      const [rowsBefore, auditsBefore] = [await alerts(), await audits()];
      let thrown: unknown;
      await write().then(
        () => assert.fail(`expected ${code}`),
        (err: unknown) => (thrown = err),
      );
      assert.ok(thrown instanceof Problem, String(thrown));
      assert.equal(thrown.status, status, thrown.detail);
      assert.equal(thrown.code, code, thrown.detail);
      assert.deepEqual(await alerts(), rowsBefore, 'no alert written');
      assert.deepEqual(await audits(), auditsBefore, 'no audit row written');
      return thrown;
    };

    before(async () => {
      api = await startInstance(engine);
      ({ patientKey: patient } = await api.note());
      ctx = {
        storage: api.storage,
        principal: { kind: 'token', staffKey: ACTOR, credential: ACTOR, scopes: [CLINICAL_SCOPE] },
        requestId: 'banner-test',
      };
    });
    after(async () => api?.stop());

    it('adds an alert with its audit row, and answers it as the API shows it', async () => {
      const added = await addBannerAlert(ctx, alert({ placement: ['chart', 'timeline', 'chart'] }));
      assert.deepEqual(
        { ...added, created_at: '', updated_at: '' },
        {
          plugin: 'vitals-alert',
          key: 'bp',
          narrative: 'Blood pressure high',
          placement: ['chart', 'timeline'],
          intent: 'warning',
          created_at: '',
          updated_at: '',
        },
      );
      assert.equal(added.created_at, added.updated_at);
      const listed = await api.call('GET', `/core/api/v1/patients/${patient}/banner-alerts/`);
      assert.deepEqual(listed.json.results, [added]);
      const [audit, ...more] = await audits();
      assert.deepEqual(more, []);
      assert.equal(audit!.action, 'banner_alert.added');
      assert.equal(audit!.entity_id, `${patient}/vitals-alert/bp`);
      assert.equal(audit!.actor, ACTOR);
      assert.equal(audit!.credential, ACTOR);
      assert.equal(audit!.request_id, 'banner-test');
      assert.equal(audit!.before, null);
      assert.deepEqual(JSON.parse(audit!.after!), {
        patient_key: patient,
        plugin_name: 'vitals-alert',
        key: 'bp',
        narrative: 'Blood pressure high',
        placement: ['chart', 'timeline'],
        intent: 'warning',
        created_at: JSON.parse(audit!.after!).created_at,
        updated_at: JSON.parse(audit!.after!).updated_at,
      });
    });

    it('the same plugin and key again replaces the alert, keeping its created_at; each add is audited', async () => {
      const [first] = (await api.call('GET', `/core/api/v1/patients/${patient}/banner-alerts/`)).json.results;
      const again = await addBannerAlert(ctx, alert({ narrative: 'Blood pressure very high', intent: 'alert', placement: ['profile'] }));
      assert.equal(again.created_at, first.created_at);
      assert.notEqual(again.updated_at, first.updated_at);
      assert.equal(again.narrative, 'Blood pressure very high');
      assert.equal((await alerts()).length, 1);
      assert.deepEqual(
        (await audits()).map((a) => a.action),
        ['banner_alert.added', 'banner_alert.added'],
      );
    });

    it('one Idempotency-Key adds once', async () => {
      const idempotency = { key: 'add-once', request: { key: 'once' } };
      const first = await addBannerAlert(ctx, alert({ key: 'once' }), idempotency);
      const auditsAfter = (await audits()).length;
      const second = await addBannerAlert(ctx, alert({ key: 'once' }), idempotency);
      assert.deepEqual(second, first);
      assert.equal((await audits()).length, auditsAfter, 'the replay writes no audit row');
    });

    it('bad input is a 400 naming each bad field, and writes nothing', async () => {
      const cases: Array<[Partial<AddBannerAlert>, string[]]> = [
        [{ narrative: '' }, ['narrative']],
        [{ narrative: 'x'.repeat(91) }, ['narrative']],
        [{ placement: [] }, ['placement']],
        [{ placement: ['chart', 'billboard'] }, ['placement']],
        [{ intent: 'panic' }, ['intent']],
        [{ key: '' }, ['key']],
        [{ plugin: '' }, ['plugin']],
        [{ patient: 'p'.repeat(201), key: 'k'.repeat(201), narrative: '', intent: '' }, ['patient', 'key', 'narrative', 'intent']],
      ];
      for (const [over, fields] of cases) {
        const p = await refused(() => addBannerAlert(ctx, alert({ key: 'bad', ...over })), 400, 'validation_failed');
        assert.deepEqual(
          p.errors?.map((e) => e.field),
          fields,
          JSON.stringify(over),
        );
        for (const field of fields) assert.match(p.detail, new RegExp(`${field}: `), p.detail);
      }
      const p = await refused(() => removeBannerAlert(ctx, { patient, plugin: 'vitals-alert', key: '' }), 400, 'validation_failed');
      assert.deepEqual(
        p.errors?.map((e) => e.field),
        ['key'],
      );
    });

    it('an unknown patient is a 400 patient_does_not_exist, and writes nothing', async () => {
      const unknown = '0'.repeat(32);
      const added = await refused(() => addBannerAlert(ctx, alert({ patient: unknown })), 400, 'patient_does_not_exist');
      assert.equal(added.detail, `Patient ${unknown} does not exist`);
      await refused(() => removeBannerAlert(ctx, { patient: unknown, plugin: 'vitals-alert', key: 'bp' }), 400, 'patient_does_not_exist');
    });

    it('an API key may not write an alert (403), and writes nothing', async () => {
      const keyCtx: Ctx = { ...ctx, principal: { kind: 'api_key', staffKey: null, credential: 'api_key:test', scopes: ['system/Plugins.*'] } };
      await refused(() => addBannerAlert(keyCtx, alert({ key: 'key' })), 403, 'forbidden');
      await refused(() => removeBannerAlert(keyCtx, { patient, plugin: 'vitals-alert', key: 'bp' }), 403, 'forbidden');
    });

    it('removes an alert with its audit row, and says whether there was one (audited either way)', async () => {
      const from = (await audits()).length;
      assert.equal(await removeBannerAlert(ctx, { patient, plugin: 'other-plugin', key: 'bp' }), false, 'the key is per plugin');
      assert.equal(await removeBannerAlert(ctx, { patient, plugin: 'vitals-alert', key: 'bp' }), true);
      assert.equal(await removeBannerAlert(ctx, { patient, plugin: 'vitals-alert', key: 'bp' }), false);
      assert.deepEqual(
        (await alerts()).map((a) => a.key),
        ['once'],
      );
      const removed = (await audits()).slice(from);
      assert.deepEqual(
        removed.map((a) => [a.action, a.entity_id, a.actor, a.before, a.after]),
        [
          ['banner_alert.removed', `${patient}/other-plugin/bp`, ACTOR, null, null],
          ['banner_alert.removed', `${patient}/vitals-alert/bp`, ACTOR, null, null],
          ['banner_alert.removed', `${patient}/vitals-alert/bp`, ACTOR, null, null],
        ],
      );
    });
  });
}
