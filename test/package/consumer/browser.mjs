// The SDK as a browser app imports it (bundled by the test with esbuild --platform=browser).
import { HubClient } from 'session-hub';

const client = new HubClient({ url: 'wss://hub.example.com/v1/ws' });
client.subscribe('demo/1').on('event', (event) => console.log(event.type));
