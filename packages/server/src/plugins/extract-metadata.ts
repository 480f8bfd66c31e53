// POST /core/api/v1/plugins/extract-metadata/: what a package would install, without storing it (docs/api.md, "Plugins").
import type { Ctx } from '../context.ts';
import { checkPackage, type UploadedFile } from './package.ts';
import { requirePluginScope } from './representation.ts';
import type { PackageMetadata } from '../inspection/index.ts';

export async function extractMetadata(ctx: Ctx, file: UploadedFile | undefined): Promise<Omit<PackageMetadata, 'manifest'> & { package_checksum: string }> {
  requirePluginScope(ctx);
  const pkg = await checkPackage(file);
  const { manifest: _manifest, ...metadata } = pkg.metadata;
  return { ...metadata, package_checksum: pkg.checksum };
}
