// The admin reference catalogues (docs/api.md, "Admin API"): API key only (a bearer token → 403).
// Each catalogue is a paginated list and a create; lab tests live under their partner.
import type { Paginated } from '@charta/api';
import { paths, type AdminCatalogue } from './paths.ts';
import type { PageOptions } from './resources.ts';
import type { Transport } from './transport.ts';

/** A catalogue entry as the instance answers it (the fields of docs/api.md's table, `created_at`). */
export type ReferenceEntry = Record<string, unknown>;

export class AdminApi {
  constructor(private readonly transport: Transport) {}

  /** GET /core/api/v1/admin/{catalogue}/: by creation order. */
  async list<T = ReferenceEntry>(catalogue: AdminCatalogue, options: PageOptions = {}): Promise<Paginated<T>> {
    return (await this.transport.send<Paginated<T>>('GET', paths.adminCatalogue(catalogue), { query: { limit: options.limit, offset: options.offset } })).data;
  }

  /** POST /core/api/v1/admin/{catalogue}/ → 201; a taken identifier → ChartaApiError 409 reference_exists. */
  async create<T = ReferenceEntry>(catalogue: AdminCatalogue, body: Record<string, unknown>): Promise<T> {
    return (await this.transport.send<T>('POST', paths.adminCatalogue(catalogue), { json: body })).data;
  }

  async labTests<T = ReferenceEntry>(partnerId: string, options: PageOptions = {}): Promise<Paginated<T>> {
    return (await this.transport.send<Paginated<T>>('GET', paths.adminLabTests(partnerId), { query: { limit: options.limit, offset: options.offset } })).data;
  }

  async createLabTest<T = ReferenceEntry>(partnerId: string, body: Record<string, unknown>): Promise<T> {
    return (await this.transport.send<T>('POST', paths.adminLabTests(partnerId), { json: body })).data;
  }
}
