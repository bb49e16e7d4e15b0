// PLACEHOLDER: replaced by the helper that owns `skillbench e2e`.
import { Command } from 'commander';

export function register(program: Command): void {
  program.command('e2e').description('(not built yet)').action(() => {
    throw new Error('e2e is not built yet');
  });
}
