import { describe, expect, it } from 'vitest';
import type { KVPair } from '../datastore/datastore.js';
import { newBlock } from '../block/new-block.js';
import { createBlockHints } from './block-hints.js';

const written = (cidr: string, revision: string): KVPair<'IPAMBlock'> => ({
  key: { kind: 'IPAMBlock', cidr },
  value: newBlock({ cidr, sequenceNumber: 1n }),
  revision,
});

describe('block hints', () => {
  it('remembers the last write of each block and forgets on request', () => {
    const hints = createBlockHints();
    hints.remember(written('10.0.0.0/26', '1'));
    hints.remember(written('10.0.0.0/26', '5'));
    hints.remember(written('10.0.0.64/26', '2'));
    expect(hints.get('10.0.0.0/26')?.revision).toBe('5');
    hints.forget('10.0.0.0/26');
    expect(hints.get('10.0.0.0/26')).toBeUndefined();
    expect(hints.size).toBe(1);
  });

  it('holds at most `limit` blocks, dropping the least recently written', () => {
    const hints = createBlockHints(2);
    hints.remember(written('10.0.0.0/26', '1'));
    hints.remember(written('10.0.0.64/26', '2'));
    hints.remember(written('10.0.0.0/26', '3')); // written again: now the most recent
    hints.remember(written('10.0.0.128/26', '4'));
    expect(hints.size).toBe(2);
    expect(hints.get('10.0.0.64/26')).toBeUndefined();
    expect(hints.get('10.0.0.0/26')?.revision).toBe('3');
    expect(hints.get('10.0.0.128/26')?.revision).toBe('4');
  });

  it('with a limit of 0 remembers nothing', () => {
    const hints = createBlockHints(0);
    hints.remember(written('10.0.0.0/26', '1'));
    expect(hints.size).toBe(0);
  });
});
