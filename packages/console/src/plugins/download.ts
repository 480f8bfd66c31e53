// Downloads a plugin's package: fetched with the signed-in credentials (a plain link could not
// carry them), then handed to the browser as a file named as the server names it.
import { call } from '../api.ts';
import { pluginPath } from './types.ts';

export async function downloadPackage(name: string): Promise<void> {
  const res = await call('GET', `${pluginPath(name)}package/`);
  const disposition = res.headers.get('content-disposition') ?? '';
  const fileName = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `${name}.tar.gz`;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
