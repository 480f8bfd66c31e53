// Downloads a plugin's package: fetched with the signed-in credentials (a plain link could not
// carry them), then handed to the browser as a file named as the server names it.
import { api } from '../api.ts';

export async function downloadPackage(name: string): Promise<void> {
  const download = await api((charta) => charta.plugins.download(name));
  const fileName = download.filename ?? `${name}.tar.gz`;
  const url = URL.createObjectURL(new Blob([new Uint8Array(download.bytes)], { type: download.contentType ?? 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
