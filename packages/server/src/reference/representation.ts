// What the admin API answers for each reference entry (timestamps as ISO with microseconds).
import { isoMicros } from '../lib/time.ts';
import type * as repo from '../storage/reference-repository.ts';
import { materialLanguages, questionDefinition } from './options.ts';

export const staffView = (r: repo.StaffRow) => ({
  key: r.key,
  first_name: r.first_name,
  last_name: r.last_name,
  credentials: r.credentials,
  npi: r.npi,
  role: r.role,
  active: r.active === 1,
  created_at: isoMicros(r.created_at),
});

export const labPartnerView = (r: repo.LabPartnerRow) => ({ id: r.id, name: r.name, created_at: isoMicros(r.created_at) });

export const labTestView = (r: repo.LabTestRow) => ({
  id: r.id,
  lab_partner: r.partner_id,
  order_code: r.order_code,
  name: r.name,
  loinc_code: r.loinc_code,
  created_at: isoMicros(r.created_at),
});

export const pharmacyView = (r: repo.PharmacyRow) => ({
  ncpdp_id: r.ncpdp_id,
  name: r.name,
  address: r.address,
  city: r.city,
  state: r.state,
  zip: r.zip,
  phone: r.phone,
  created_at: isoMicros(r.created_at),
});

export const reasonForVisitView = (r: repo.ReasonForVisitRow) => ({
  id: r.id,
  system: r.system,
  code: r.code,
  display: r.display,
  created_at: isoMicros(r.created_at),
});

export const questionnaireView = (r: repo.QuestionnaireRow, questions: repo.QuestionRow[]) => ({
  id: r.id,
  code: r.code,
  name: r.name,
  prologue: r.prologue,
  questions: questions.map((q) => {
    const d = questionDefinition(q);
    return {
      id: d.pk,
      code: d.code,
      label: d.label,
      kind: d.type,
      options: d.options.map((o) => ({ id: o.pk, code: o.code, text: o.text, ...(o.score === undefined ? {} : { score: o.score }) })),
    };
  }),
  created_at: isoMicros(r.created_at),
});

export const materialView = (r: repo.MaterialRow) => ({
  id: r.id,
  title: r.title,
  abstract: r.abstract,
  languages: materialLanguages(r),
  created_at: isoMicros(r.created_at),
});

export const dispenseUnitView = (r: repo.DispenseUnitRow) => ({
  ncpdp_quantity_qualifier_code: r.code,
  description: r.description,
  created_at: isoMicros(r.created_at),
});
