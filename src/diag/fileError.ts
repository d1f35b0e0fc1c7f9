/**
 * A file system error as a person says it ("no such file or directory"), for every layer that reads
 * the files it is handed: never Node's `ENOENT: no such file or directory, stat 'x'`, which repeats
 * the path and names a system call.
 */
export function fileErrorReason(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
