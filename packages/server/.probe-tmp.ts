import { startInstance } from '/work/main/packages/server/test/support/harness.ts';
const i = await startInstance('sqlite');
console.log(JSON.stringify(i.app.printRoutes({ commonPrefix: false })));
console.log(i.app.printRoutes({ commonPrefix: false }));
await i.stop();
