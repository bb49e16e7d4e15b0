// PLACEHOLDER: replaced by the helper that owns `skillbench tokens`.
import { Command } from 'commander';

export function register(program: Command): void {
  program.command('tokens').description('(not built yet)').action(() => {
    throw new Error('tokens is not built yet');
  });
}
