// What flows to and from an embedding provider.

export type EmbeddingRole = 'document' | 'query';

export interface EmbeddingInput {
  text: string;
  /** For documents: the skill name (Gemini's `title:` prefix). */
  title?: string;
}

export interface EmbeddingProvider {
  id: 'use' | 'gemini' | 'openai';
  model: string;
  embed(inputs: EmbeddingInput[], role: EmbeddingRole): Promise<number[][]>;
}
