/** A plugin's name as the instance knows it: "My Plugin_2" → "my-plugin-2". */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
