// The console's entry: mounts the app (docs/console.md).
import { render } from 'preact';
import { App } from './app.tsx';

render(<App />, document.getElementById('app')!);
