// PLACEHOLDER: replaced by the helper that owns `skillbench init`.
import { Command } from 'commander';

export function register(program: Command): void {
  program.command('init').description('(not built yet)').action(() => {
    throw new Error('init is not built yet');
  });
}
