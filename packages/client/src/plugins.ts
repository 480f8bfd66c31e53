// Plugin endpoints @charta/client covers: a plugin's secrets (an API key, or a token with the scope
// system/Plugins.*). Values go in; only names come back.
import type { SecretChange as PluginSecretChange, SecretListing as PluginSecretListing } from '@charta/api';
import { paths } from './paths.ts';
import type { Transport } from './transport.ts';

export class PluginsApi {
  constructor(private readonly transport: Transport) {}

  /** GET /core/api/v1/plugins/{name}/secrets/: the declared and set names, whether each is set, never a value. */
  async secrets(name: string): Promise<PluginSecretListing> {
    return (await this.transport.send<PluginSecretListing>('GET', paths.pluginSecrets(name))).data;
  }

  /**
   * PATCH /core/api/v1/plugins/{name}/secrets/: `{KEY: "value"}` sets, `{KEY: null}` removes, in one
   * write; resolves to the listing. A name the manifest does not declare, a value over 4096 bytes
   * or with a NUL → ChartaApiError 400 validation_failed, nothing changed.
   */
  async setSecrets(name: string, change: PluginSecretChange): Promise<PluginSecretListing> {
    return (await this.transport.send<PluginSecretListing>('PATCH', paths.pluginSecrets(name), { json: change })).data;
  }
}
