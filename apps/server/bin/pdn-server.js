#!/usr/bin/env node
// The `pdn-server` command. npm links a package's bins when it installs it, before anything is built, and
// links none whose file is missing (a fresh clone had no `pdn-server`). This committed file is
// what it links; it runs the build.
import '../dist/bin.js';
