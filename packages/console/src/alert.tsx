// An error message where it happened, announced at once (role="alert"); nothing when there is none.
export function Alert({ message, id }: { message: string | undefined; id?: string }) {
  if (message === undefined || message === '') return null;
  return (
    <p id={id} class="error" role="alert">
      {message}
    </p>
  );
}
