// `node --import` this before wrangler's own CLI, which runs the `wrangler dev -c a -c b` command
// (`npm run start:targets`, the e2e servers of several Workers) without scripts/dev-server.mjs: its
// loopback then keeps idle connections open too (./loopback-keep-alive.mjs says why).
import { keepIdleConnectionsOpen } from "./loopback-keep-alive.mjs";

keepIdleConnectionsOpen();
