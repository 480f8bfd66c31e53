// Every reason a package was refused for (the problem's `errors`), as the install zone and a
// plugin's "Upload a new version" both list them.
export function Reasons({ reasons }: { reasons: ReadonlyArray<{ field?: string | null; message: string }> }) {
  if (reasons.length === 0) return null;
  return (
    <ul aria-label="Reasons">
      {reasons.map((r, i) => (
        <li key={i}>
          {r.field ? <code>{r.field}</code> : null} {r.message}
        </li>
      ))}
    </ul>
  );
}
