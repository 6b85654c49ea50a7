// Entry point of the inspector page (bundled by server/http/inspector-bundle.ts).
import { render } from 'preact';
import { App } from './app.tsx';
import './styles.css';

render(<App />, document.getElementById('app')!);
