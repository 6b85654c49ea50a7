import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ArchiveLocationError, archiveBackendFor } from '../../server/archive/archive-location.ts';
import { FileArchive } from '../../server/archive/file/file-archive.ts';
import { PostgresArchive } from '../../server/archive/postgres/pg-archive.ts';
import { thrown } from '../helpers/thrown.ts';

describe('archiveBackendFor', () => {
  test('file:<dir> and file:// URLs name a file archive in that directory', () => {
    const relative = archiveBackendFor('file:var/archive');
    expect(relative).toBeInstanceOf(FileArchive);
    expect((relative as FileArchive).dir).toBe(resolve('var/archive'));
    expect((archiveBackendFor('file:/srv/a b') as FileArchive).dir).toBe('/srv/a b');
    expect((archiveBackendFor('file:///srv/a%20b') as FileArchive).dir).toBe('/srv/a b');
  });

  test('postgres:// and postgresql:// URLs name a PostgreSQL archive', async () => {
    for (const location of ['postgres://u@127.0.0.1:5432/db', 'postgresql://u:p@db.example/archive?sslmode=disable']) {
      const backend = archiveBackendFor(location);
      expect(backend).toBeInstanceOf(PostgresArchive);
      expect(backend.kind).toBe('postgres');
      await backend.close();
    }
  });

  test('anything else is refused with the forms there are', () => {
    for (const location of [
      '',
      'file:',
      ' file:/x',
      '/srv/archive',
      's3://bucket',
      'file://host/x',
      'mysql://db',
      'postgres://',
      'postgres:///db',
    ]) {
      const error = thrown(() => archiveBackendFor(location));
      expect(error).toBeInstanceOf(ArchiveLocationError);
      expect(error).toMatchObject({ code: 'BAD_ARCHIVE_LOCATION' });
    }
    expect(String(thrown(() => archiveBackendFor('s3://bucket')))).toContain('file:<dir>');
  });
});
