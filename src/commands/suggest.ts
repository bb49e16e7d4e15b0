// PLACEHOLDER: replaced by the helper that owns `skillbench suggest`.
import { Command } from 'commander';

export function register(program: Command): void {
  program.command('suggest').description('(not built yet)').action(() => {
    throw new Error('suggest is not built yet');
  });
}
