import net from 'node:net';

/**
 * Where a vitest worker's ports come from: block `VITEST_POOL_ID` of BLOCK_SIZE ports from BLOCKS_START, below Linux's
 * ephemeral range (32768–60999), so no outgoing connection and no other worker's `listen(0)` can be handed the port
 * between the moment it is chosen and the moment a child process (a server that takes seconds to start) binds it.
 */
const BLOCKS_START = 20_000;
const BLOCK_SIZE = 1_000;
const MAX_BLOCKS = 8;

let next = 0;

/**
 * A free TCP port on loopback (the bench's child servers, the deploy check and the test helpers share it). In a
 * vitest worker: the next free port of the worker's own block (see BLOCKS_START); elsewhere one the OS picks.
 */
export async function freePort(): Promise<number> {
  const block = Number(process.env.VITEST_POOL_ID);
  if (Number.isInteger(block) && block >= 1 && block <= MAX_BLOCKS) {
    for (let tries = 0; tries < BLOCK_SIZE; tries++) {
      const port = BLOCKS_START + (block - 1) * BLOCK_SIZE + (next++ % BLOCK_SIZE);
      if (await canListen(port)) return port;
    }
  }
  return listenOn(0);
}

function canListen(port: number): Promise<boolean> {
  return listenOn(port).then(
    () => true,
    () => false, // in use
  );
}

function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
