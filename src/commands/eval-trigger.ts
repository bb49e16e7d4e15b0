// PLACEHOLDER: replaced by the helper that owns `skillbench eval-trigger`.
import { Command } from 'commander';

export function register(program: Command): void {
  program.command('eval-trigger').description('(not built yet)').action(() => {
    throw new Error('eval-trigger is not built yet');
  });
}
