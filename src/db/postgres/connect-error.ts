/**
 * Why the server could not start on PostgreSQL, and whether a retry may help: `transient` is
 * exit 1 (systemd restarts: the server is down, starting, failing over), otherwise exit 2 (the
 * admin must act: the URL, the password, the database, a privilege, the server's version).
 * Its own file so the CLI's exit-code table can know it without loading postgres.js.
 */
export class DatabaseConnectError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = "DatabaseConnectError";
  }
}
