// An error message where it happened, announced at once (role="alert"), marked with an icon as
// well as its colour (docs/console.md, "Design system"); nothing when there is none.
import { CircleAlert, Icon } from './icon.tsx';

export function Alert({ message, id }: { message: string | undefined; id?: string }) {
  if (message === undefined || message === '') return null;
  return (
    <p id={id} class="error with-icon" role="alert">
      <Icon node={CircleAlert} />
      <span>{message}</span>
    </p>
  );
}
