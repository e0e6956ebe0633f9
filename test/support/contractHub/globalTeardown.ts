/** jest's globalTeardown: stops the contract run's Prism pool (see globalSetup.ts). */
export default async function globalTeardown(): Promise<void> {
  const hub = globalThis.contractHub;
  if (!hub || hub.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    hub.once('exit', () => resolve());
    hub.kill('SIGTERM');
  });
}
