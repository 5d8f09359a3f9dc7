"""Validators: runner recognition, tiers, selection masking, declared validators."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from interlock.engine.findings import RuleInfo, ValidatorMatch
from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules
from interlock.shell.parse import parse


@pytest.fixture(scope="session")
def classify(inv: Callable[..., Invocation]) -> Callable[..., ValidatorMatch | None]:
    def classify(cmd: str, declared: tuple[str, ...] = ()) -> ValidatorMatch | None:
        return rules.classify_validator(inv(cmd), declared)

    return classify


SLOW = [
    "pytest",
    "py.test",
    "pytest-3",
    "/usr/bin/pytest -q",
    "python -m pytest",
    "python3 -m pytest -q",
    "python3.11 -m pytest",
    "python -u -W error -m pytest",
    "python -mpytest",
    "pypy3 -m pytest",
    "pytest -x",
    "pytest -q -x --maxfail 1",
    "pytest tests/",
    "pytest .",
    "pytest tests/unit tests/integration",
    "pytest tests/test_api.py tests/integration",
    "pytest --ff",
    "pytest -p no:cacheprovider",
    "pytest --ignore-glob='**/node_modules/*'",
    "pytest --ignore=setup.py --ignore=docs",
    "cargo insta test",
    "npx playwright test --update-snapshots=none",
    "UPDATE_GOLDEN=0 go test ./...",
    "INSTA_UPDATE=new cargo test",
    "npx cypress run --record",
    "pytest -n auto",
    "pytest --cov src",
    "pytest --cov tests/test_api.py",
    "pytest --cov=src --cov-report term-missing",
    "pytest -k ''",
    "pytest $TESTS",
    "coverage run -m pytest",
    "coverage run --source=src -m pytest -q",
    "python -m coverage run -m pytest",
    "python -m unittest",
    "python -m unittest discover",
    "python -m unittest discover -s tests -p 'test_*.py'",
    "python manage.py test",
    "python setup.py test",
    "python -m django test",
    "tox",
    "tox -e py311",
    "tox -e py311,lint",
    "tox run -e py312",
    "nox",
    "nox -s tests",
    "make",
    "make test",
    "make check",
    "make all",
    "make build",
    "make -j 4 test",
    "make -j8 test",
    "make -C sub test",
    "make -k test",
    "make clean test",
    "make lint test",
    "make myprogram",
    "make test-integration",
    "gmake check",
    "just test",
    "just",
    "ninja",
    "cmake --build build",
    "cmake --build . --target test",
    "npm test",
    "npm t",
    "npm run test",
    "npm run test:unit",
    "npm run-script test",
    "npm run build",
    "npm --prefix web test",
    "npm test --workspaces",
    "npm run ci",
    "yarn test",
    "yarn run test",
    "yarn workspace api test",
    "pnpm test",
    "pnpm -r test",
    "pnpm --filter api test",
    "pnpm run e2e",
    "bun test",
    "bun run test",
    "npx jest",
    "jest",
    "jest --coverage",
    "npx vitest run",
    "vitest",
    "vitest run",
    "npx mocha",
    "mocha test/",
    "npx ava",
    "npx playwright test",
    "npx cypress run",
    "karma start",
    "node --test",
    "deno test",
    "turbo run test",
    "nx run-many -t test",
    "nx test api",
    "lerna run test",
    "ng test",
    "go test ./...",
    "go test",
    "go test ./a ./b",
    "go test -count=1 -race ./...",
    "go build ./...",
    "cargo test",
    "cargo test --all-features",
    "cargo test --workspace",
    "cargo +nightly test",
    "cargo build --release",
    "cargo nextest run",
    "cargo nextest run --no-tests=fail",
    "go test -exec sudo ./...",
    "cargo-nextest nextest run",
    "cargo llvm-cov",
    "mvn test",
    "mvn verify",
    "mvn clean package",
    "mvn -B -q install",
    "./mvnw test",
    "./gradlew test",
    "gradle check",
    "gradle build",
    "./gradlew :app:test",
    "dotnet test",
    "dotnet build",
    "rspec",
    "bundle exec rspec",
    "bundle exec rake test",
    "rake",
    "rails test",
    "phpunit",
    "vendor/bin/phpunit",
    "php vendor/bin/phpunit",
    "php artisan test",
    "composer test",
    "mix test",
    "swift test",
    "flutter test",
    "dart test",
    "ctest",
    "ctest --output-on-failure",
    "bazel test //...",
    "bazel build //:all",
    "./run_tests.sh",
    "./scripts/test.sh",
    "scripts/run-tests",
    "bash run_tests.sh",
    "sh ./ci.sh",
    "./build.sh",
    "python scripts/run_tests.py",
    "hatch test",
    "hatch run test",
    "pdm run test",
    "poetry run pytest",
    "uv run pytest",
    "uv run --with pytest-xdist pytest -n 4",
    "pipenv run pytest",
    "rye test",
    "npx jest --testFailureExitCode=1",
    "node -r ts-node/register --test",
    "ng test --watch=false",
    "pdm check",
    "python ./manage.py test",
    "./manage.py test",
    "bash run_tests.sh $ARGS",
    "bash run_tests.sh --verbose",
    "./runtests.sh",
    "uvx pytest",
    "pytest -x --cov tests/test_api.py",
    "PYTEST_ADDOPTS=\"-k 'not\" pytest",
    "FOO=--co pytest",
    "pytest --ignore=scripts",
    "pytest --ignore=build/test_gen.py",
    "python -m unittest discover tests",
    "tox --skip-missing-interpreters=false",
    "nox -k tests",
    "npx jest --passWithNoTests=false",
    "npx jest --passWithNoTests=0",
    "npx jest --testPathIgnorePatterns=[]",
    "npx jest --testPathIgnorePatterns=",
    "npm test -- --if-present",
    "npm test -- --if-present -- x",
    "npm test $ARGS",
    "yarn workspace api test --ci",
    "npm exec jest",
    "pnpm dlx vitest run",
    "bun x jest",
    "turbo test",
    "turbo run lint test",
    "turbo run build --filter=web",
    "turbo run --parallel test",
    "nx run-many --targets lint,test",
    "nx run api:test",
    "npm run test $ARGS",
    "go test ./... -args -skip=X",
    "go test ./... --args -skip=X",
    'go test "$PKG"',  # an unknown package, not an unknown flag
    'bazel test "$TARGET"',
    'bazel test //... --config="$C"',
    "go test ./... -count",
    "cargo b",
    "cargo t",
    "cargo tarpaulin",
    "cargo miri test",
    "rspec --tag fast",
    "rake --trace",
    "rake CI=1",
    "rake db:migrate test",
    "swift build",
    "bazel coverage //...",
    "bazel --bazelrc=ci.rc test //...",
    "bazel test //pkg:a_test //pkg:b_test",
    "bazel build //pkg:app",
    "bazel test //... --test_tag_filters=unit",
    "ninja -v",
    "cmake --build build --target",
    "mvn test -D skipTests=false -Dfoo",
    "mvn test -DskipTests=false",
    "pytest -- --exit-zero",
    "pytest --inline-snapshot=disable",
    "pytest --ignore=src/node_modules",
    "pytest --ignore=tests/node_modules",
    "pytest --ignore=tests/__pycache__",
    "pytest --ignore=docs/conf.py",
    "pytest -o timeout=$X",
    "pytest -o timeout=30",
    "pytest --ignore=src/app.egg-info",
    "PYTEST_ADDOPTS=-q pytest",
    "go test -skip= ./...",
    "go test -run= ./...",
    "jest --modulePathIgnorePatterns=",
    "node -r ts-node/register --test",
    "make CC=$X test",
    "MAKEFLAGS=-k make test",
    "MAKEFLAGS='-k -- X=-i' make test",
    "MAKEFLAGS='w --no-print-directory' make test",
    "MAKEFLAGS=X=-i make test",
    "MAKEFLAGS= make test",
]


FAST = [
    "pytest tests/test_api.py::test_roundtrip",
    "pytest --lf",
    "pytest --sw -x",
    "pytest --sw-skip",
    "pytest --splits 3 --group 1",
    "pytest --shard-id=0 --num-shards=3",
    "npx jest --shard=1/3",
    "npx vitest run --shard 1/2",
    "npx jest --changedSince main",
    "npx jest --lastCommit",
    "npx playwright test --last-failed",
    "node --test --test-name-pattern=parser",
    "node --test-only --test",
    "gofmt -d .",
    "rye lint",
    "pdm lint",
    "pdm typecheck",
    "uvx ruff check .",
    "python -m django test app.tests",
    "./tests/test_api.py",
    "pytest --cov src tests/test_api.py",
    "PYTEST_ADDOPTS='--tb=short tests/test_api.py' pytest",
    "tox -e docs-lint",
    "tox -e pre-commit",
    "ruff /src/app",
    "ruff ./src",
    "pre-commit try-repo ../hooks",
    "vitest dev src/a.test.ts",
    "vitest watch src/a.test.ts",
    "vitest related src/utils",
    "biome lint .",
    "biome format src",
    "npm run test src/a.test.ts",
    "bun lint",
    "turbo run lint",
    "nx run-many --target=lint",
    "nx affected -t lint",
    "nx run api:lint",
    "nx run api:lint:ci",
    "nx run api:lint src",
    "nx run lint",
    "yarn workspace api lint --quiet",
    "go test ./pkg -run TestX",
    "go test -count 1 ./pkg",
    "go test -v ./pkg",
    "cargo c",
    "mix format --check-formatted lib",
    "mix credo",
    "mix dialyzer",
    "mix compile",
    "flutter test test/widget_test.dart",
    "bazel test //pkg:a_test --config=ci",
    "bazel test //... --test_filter=Token",
    "make -j 4 lint",
    "make -l 2 lint",
    "make --jobs 4 lint",
    "make --load-average 2.5 lint",
    "make -j lint",
    "just lint test",
    "ninja -d explain lint",
    "cmake --build build --target lint",
    "cmake --build build -t lint",
    "mvn compile exec:java",
    "mvn checkstyle:checkstyle",
    "flake8 --exit-zero=false",
    "flake8 --exit-zero=0",
    "flake8 --exit-zero=no",
    "pylint --fail-under 5 src",
    "phpcs --runtime-set ignore_errors_on_exit 0 src",
    "phpcs --runtime-set ignore_errors_on_exit false src",
    "phpcs --runtime-set ignore_errors_on_exit",
    "golangci-lint run --issues-exit-code",
    "lerna run lint",
    "deno fmt --check src",
    "pytest tests/test_api.py",
    "pytest tests/test_a.py tests/test_b.py",
    "pytest tests/test_api.py::TestX::test_y -x",
    "pytest -k token",
    "pytest -k 'token and roundtrip'",
    "pytest -m smoke",
    "go test -run \"$X\" ./...",
    "jest --selectProjects unit",
    "make lint CC=clang",
    "python -m pytest tests/test_api.py -q",
    "PYTEST_ADDOPTS='-k token' pytest",
    "python -m unittest tests.test_api.TestRoundTrip.test_token",
    "python -m unittest tests/test_api.py",
    "python -m unittest -k token",
    "python tests/test_api.py",
    "python manage.py test app.tests.TestX",
    "tox -e lint",
    "tox -e mypy,flake8",
    "nox -s lint",
    "make lint",
    "make typecheck",
    "make fmt-check",
    "make check-format",
    "just lint",
    "npm run lint",
    "npm run typecheck",
    "npm run lint:fix",
    "npm run format:check",
    "yarn lint",
    "pnpm lint",
    "npm test -- src/parser.test.ts",
    "npm test -- -t parser",
    "npx jest src/parser.test.ts",
    "jest -t 'parses tokens'",
    "jest --testNamePattern parser",
    "npx vitest run src/parser.test.ts",
    "vitest run -t parser",
    "vitest related src/a.ts",
    "mocha test/parser.spec.js",
    "mocha -g parser",
    "npx playwright test tests/login.spec.ts",
    "npx playwright test -g login",
    "npx cypress run --spec cypress/e2e/login.cy.js",
    "node --test test/a.test.js",
    "bun test src/a.test.ts",
    "deno test src/a_test.ts",
    "deno lint",
    "deno check main.ts",
    "deno fmt --check",
    "go test -run TestTokenRoundTrip ./internal/api/",
    "go test -run=TestX ./...",
    "go test ./internal/api/",
    "go vet ./...",
    "gofmt -l .",
    "golangci-lint run",
    "staticcheck ./...",
    "cargo test token_roundtrip",
    "cargo test --test integration",
    "cargo test -- token",
    "cargo check",
    "cargo clippy -- -D warnings",
    "cargo fmt --check",
    "cargo fmt -- --check",
    "cargo nextest run token",
    "cargo nextest run -E 'test(parser)'",
    "cargo test -- --ignored",
    "mvn test -Dtest=TokenTest",
    "mvn compile",
    "mvn package -DskipTests",
    "mvn checkstyle:check",
    "./gradlew test --tests com.x.TokenTest",
    "./gradlew build -x test",
    "./gradlew compileJava",
    "./gradlew lint",
    "dotnet test --filter FullyQualifiedName~Token",
    "dotnet format --verify-no-changes",
    "rspec spec/models/user_spec.rb",
    "rspec spec/models/user_spec.rb:42",
    "rspec -e 'parses tokens'",
    "rake lint",
    "rubocop",
    "ruby -Itest test/token_test.rb",
    "ruby -Itest test/token_test.rb:12",
    "phpunit tests/TokenTest.php",
    "phpunit --filter testToken",
    "phpstan analyse",
    "mix test test/token_test.exs",
    "mix format --check-formatted",
    "swift test --filter TokenTests",
    "flutter analyze",
    "ctest -R token",
    "bazel test //pkg:token_test",
    "ruff check .",
    "ruff .",
    "ruff check --fix src",
    "ruff format --check .",
    "ruff format --diff",
    "python -m ruff check",
    "mypy src",
    "python -m mypy src",
    "dmypy run -- src",
    "pyright",
    "flake8",
    "pylint src",
    "black --check .",
    "black --diff src",
    "isort --check-only .",
    "isort -c .",
    "bandit -r src",
    "tsc --noEmit",
    "tsc",
    "tsc -p tsconfig.json",
    "npx tsc --noEmit",
    "vue-tsc --noEmit",
    "npx eslint .",
    "eslint src --ext .ts",
    "prettier --check .",
    "npx prettier -c src",
    "biome check .",
    "biome ci",
    "stylelint '**/*.css'",
    "next lint",
    "ng lint",
    "pre-commit run --all-files",
    "pre-commit run",
    "shellcheck scripts/*.sh",
    "./scripts/lint.sh",
    "bash scripts/typecheck.sh",
    "hatch run lint:check",
    "uv run ruff check .",
    "poetry run mypy src",
    "npx tsc",
]

NOT_VALIDATORS = [
    "python script.py",
    "python script.py --help",
    "python -c 'print(1)'",
    "python",
    "python3 -m http.server",
    "python -m pip install -e .",
    "pip install -e .",
    "python manage.py runserver",
    "python manage.py migrate",
    "python setup.py install",
    "npm install",
    "npm ci",
    "npm run dev",
    "npm run start",
    "npm start",
    "npm run storybook",
    "npm run myscript",
    "npm exec cowsay hi",
    "yarn",
    "yarn add lodash",
    "pnpm install",
    "npx create-react-app x",
    "npx cowsay hi",
    "bun install",
    "cmake ..",
    "cmake -S . -B build",
    "make clean",
    "make install",
    "make run",
    "make docs",
    "make format",
    "make -p",
    "make --version",
    "make ./",
    "golangci-lint --help",
    "rubocop -h",
    "shellcheck --version",
    "poetry check",
    "uv build",
    "uv run",
    "poetry run",
    "pipx install pytest",
    "bundle update rake",
    "python - tests/test_api.py",
    "python -m",
    "python $X -m pytest",
    "coverage html -d test_report",
    "coverage run $SCRIPT",
    "$RUNNER tests/",
    "php artisan",
    "./test-*.sh",
    "bundle exec",
    "FOO=1",
    "uv run myapp test",
    "python -m unittest -h",
    "tox l",
    "tox config",
    "tox c",
    "tox devenv .venv",
    "tox d .venv",
    "tox quickstart",
    "tox depends",
    "tox de",
    "mypy --help",
    "flake8 -h",
    "pylint --version",
    "mypy -V",
    "ruff check --help",
    "ruff -h",
    "ruff -V",
    "pre-commit --help",
    "pre-commit run --help",
    "pre-commit -h",
    "pre-commit --version",
    "pre-commit -V",
    "pre-commit $CMD",
    "mocha --help",
    "mocha -V",
    "jest -v",
    "vitest init browser",
    "eslint --help",
    "tsc -h",
    "prettier --version",
    "eslint -v",
    "eslint --version",
    "nx run",
    "cargo insta pending-list",
    "phpunit --version",
    "mix format",
    "swift run",
    "ninja --version",
    "ninja -t clean",
    "ninja -t targets",
    "make -v",
    "yarn workspace api",
    "bun test --help",
    "npm run",
    "npm run $SCRIPT",
    "turbo run dev",
    "nx graph",
    "nx run-many -t",
    "deno fmt",
    "just --list",
    "cat Makefile",
    "ls",
    "ls tests/",
    "cat tests/test_api.py",
    "git status",
    "black .",
    "isort src",
    "ruff format .",
    "ruff rule E501",
    "ruff --version",
    "prettier --write .",
    "biome format --write .",
    "gofmt -w .",
    "go run ./cmd/app",
    "go mod tidy",
    "go fmt ./...",
    "cargo run",
    "cargo fmt",
    "cargo add serde",
    "cargo doc",
    "mvn clean",
    "mvn dependency:tree",
    "./gradlew bootRun",
    "./gradlew clean",
    "./gradlew tasks",
    "dotnet run",
    "dotnet format",
    "tox -l",
    "tox list",
    "tox --version",
    "nox -l",
    "pytest --version",
    "pytest --help",
    "pytest --fixtures",
    "pytest --funcargs",
    "jest --version",
    "tsc --init",
    "rake db:migrate",
    "bundle install",
    "composer install",
    "./deploy.sh",
    "./scripts/start.sh",
    "bash -c 'echo hi'",
    "bash",
    "node server.js",
    "node -e 'console.log(1)'",
    "node app.js --test",
    "node server.js --test-name-pattern x --test",
    "deno run main.ts",
    "docker build .",
    "playwright install",
    "cypress open",
    "vitest bench",
    "mix deps.get",
    "flutter run",
    "cmake --build . --target clean",
    "bazel query //...",
    "pre-commit install",
    "hatch run dev",
    "poetry install",
    "uv sync",
    "uv pip install -e .",
    "pipx install ruff",
    "echo pytest",
    "grep -rn pytest .",
    "test -f x",
    "[ -f x ]",
    "$CMD",
]


@pytest.mark.parametrize("cmd", SLOW)
def test_full_suite_validators_are_slow(cmd: str, classify) -> None:
    match = classify(cmd)
    assert match is not None and match.tier == "slow" and match.masked_by is None, match


@pytest.mark.parametrize("cmd", FAST)
def test_targeted_tests_and_checkers_are_fast(cmd: str, classify) -> None:
    match = classify(cmd)
    assert match is not None and match.tier == "fast" and match.masked_by is None, match


@pytest.mark.parametrize("cmd", NOT_VALIDATORS)
def test_other_commands_are_not_validators(cmd: str, classify) -> None:
    assert classify(cmd) is None


MASKED = [
    ("pytest -k 'not test_token'", "validator.negative-selection"),
    ("pytest -k 'api and not slow'", "validator.negative-selection"),
    ("pytest -k 'not(slow)'", "validator.negative-selection"),
    ("pytest -m 'not integration'", "validator.narrowed"),
    ("pytest -k 'not slow' -m 'not db'", "validator.negative-selection"),
    ("pytest --ignore-glob='*/slow/*'", "validator.negative-selection"),
    ("pytest --ignore=src/app/tests", "validator.negative-selection"),
    ("npx jest -t '^(?!.*token).*$'", "validator.negative-selection"),
    ("npx jest --testNamePattern='^((?!slow).)*$'", "validator.negative-selection"),
    ("vitest run -t '(?<!slow)$'", "validator.negative-selection"),
    ("npx jest --testPathPattern '^(?!.*api)'", "validator.negative-selection"),
    ("mocha --grep '^(?!.*token)'", "validator.negative-selection"),
    ("npx playwright test -g '^(?!.*login)'", "validator.negative-selection"),
    ("npm test -- -t '^(?!.*token)'", "validator.negative-selection"),
    ("phpunit --filter '/^(?!.*testToken)/'", "validator.negative-selection"),
    ("rspec -e '^(?!.*token)'", "validator.negative-selection"),
    ("rspec --exclude-pattern 'spec/slow/**'", "validator.negative-selection"),
    ("npx ava '!test/slow/**'", "validator.negative-selection"),
    ("cargo test --workspace --exclude api", "validator.negative-selection"),
    ("dotnet test --filter 'Category!=Slow'", "validator.narrowed"),
    ("mvn test -DexcludedGroups=slow", "validator.narrowed"),
    ("pytest --deselect tests/test_api.py::test_token", "validator.negative-selection"),
    ("pytest --deselect=tests/test_api.py::test_token", "validator.negative-selection"),
    ("pytest -p no:cacheprovider --ignore=tests/test_api.py", "validator.negative-selection"),
    ("pytest --ignore tests/integration", "validator.negative-selection"),
    ("pytest --ignore-glob='*_slow.py'", "validator.negative-selection"),
    ("pytest --ignore=build/../tests", "validator.negative-selection"),
    ("pytest --ignore-glob='node_modules/../tests/*'", "validator.negative-selection"),
    ("PYTEST_ADDOPTS='-k \"not slow\"' pytest", "validator.negative-selection"),
    # a directory that holds no tests holds some inside a test directory
    ("pytest --ignore=tests/build", "validator.negative-selection"),
    ("pytest --ignore=src/tests/docs/", "validator.negative-selection"),
    ("pytest --ignore-glob='tests/dist/*'", "validator.negative-selection"),
    # a selection known only at run time may leave tests out
    ('pytest -k "$X"', "validator.negative-selection"),
    ('pytest tests/test_a.py -k "$X"', "validator.negative-selection"),
    ('pytest -m "$X"', "validator.narrowed"),
    ("pytest --ignore=$X", "validator.negative-selection"),
    ('pytest --ignore "$DIR"', "validator.negative-selection"),
    ('PYTEST_ADDOPTS="$X" pytest', "validator.negative-selection"),
    ('pytest -o addopts="$X"', "validator.negative-selection"),
    ('pytest -o "$KV"', "validator.negative-selection"),
    ('pytest -o "addopts=-q $X"', "validator.negative-selection"),
    ('python -m unittest -k "$X"', "validator.negative-selection"),
    ('nox -k "$X"', "validator.negative-selection"),
    ('tox -- -k "$X"', "validator.negative-selection"),
    ('npx jest -t "$X"', "validator.negative-selection"),
    ('mocha --grep "$X"', "validator.negative-selection"),
    ('node --test --test-name-pattern "$X"', "validator.negative-selection"),
    ('go test -skip "$X" ./...', "validator.negative-selection"),
    ('go test -skip="$X" ./...', "validator.negative-selection"),
    ("npx jest --ignoreProjects e2e", "validator.negative-selection"),
    ('MAKEFLAGS="$X" make test', "validator.ignore-failures"),
    # MAKEFLAGS: a first word of letters, then options up to `--`
    ("MAKEFLAGS='-k -i' make test", "validator.ignore-failures"),
    ("MAKEFLAGS='i -k' make test", "validator.ignore-failures"),
    ("MAKEFLAGS='i -- CC=gcc' make test", "validator.ignore-failures"),
    ("mvn test -Dgroups='!slow'", "validator.narrowed"),
    ("mvn verify -DfailIfNoTests=false", "validator.pass-with-no-tests"),
    ("MAKEFLAGS='k --ignore-errors' make check", "validator.ignore-failures"),
    ("MAKEFLAGS='-j4 -n' make test", "validator.no-run"),
    ("MAKEFLAGS='k --touch' make test", "validator.no-run"),
    ("MAKEFLAGS=kq make test", "validator.no-run"),
    ('rspec -t "$T"', "validator.narrowed"),
    ('rspec -e "$X"', "validator.negative-selection"),
    ('phpunit --filter "$X"', "validator.negative-selection"),
    ('cargo nextest run -E "$X"', "validator.negative-selection"),
    ('dotnet test --filter "$X"', "validator.negative-selection"),
    ("bazel test //... --test_tag_filters=$X", "validator.narrowed"),
    ('bazel test //... "--$OPT"', "validator.narrowed"),  # may be --test_tag_filters=-x
    ('go test "-$F" ./...', "validator.negative-selection"),  # may be -skip=X
    ('go test -s"$X" ./...', "validator.negative-selection"),
    ('go test -run="$X" -skip=TestA ./...', "validator.negative-selection"),
    ("make MAKEFLAGS=$X test", "validator.ignore-failures"),
    ('make check MFLAGS="-$F"', "validator.ignore-failures"),
    ("jest --modulePathIgnorePatterns '<rootDir>/slow'", "validator.negative-selection"),
    ("python -m pytest -k 'not flaky' tests/", "validator.negative-selection"),
    ("python -mpytest -k 'not slow'", "validator.negative-selection"),
    ("python -u -m pytest -k 'not slow'", "validator.negative-selection"),
    ("python -W error -m pytest -k 'not slow'", "validator.negative-selection"),
    ("coverage run -m pytest -k 'not slow'", "validator.negative-selection"),
    ("uv run pytest -k 'not slow'", "validator.negative-selection"),
    ("pytest -o addopts='-k \"not slow\"'", "validator.negative-selection"),
    ("pytest -q -o addopts=--co", "validator.collect-only"),
    ("pytest --override-ini addopts=--deselect=a.py::t", "validator.negative-selection"),
    ("pytest --override-ini=addopts=--co", "validator.collect-only"),
    ("pytest -oaddopts=--co", "validator.collect-only"),
    ("pytest --ignore=specs", "validator.negative-selection"),
    ("pytest --ignore=src/app/checks.py", "validator.negative-selection"),
    ("tox -- --suppress-tests-failed-exit-code", "validator.ignore-failures"),
    ("PYTEST_ADDOPTS=--exit-zero pytest", "validator.ignore-failures"),
    ("tox --skip-missing-interpreters=1", "validator.pass-with-no-tests"),
    ("tox --skip-missing-interpreters=yes", "validator.pass-with-no-tests"),
    ("python manage.py test --exclude-tag slow", "validator.narrowed"),
    ("python -m unittest -k 'not x'", "validator.negative-selection"),
    ("tox -- -k 'not slow'", "validator.negative-selection"),
    ("nox -k 'not lint'", "validator.negative-selection"),
    ("go test -list $PATTERN ./...", "validator.collect-only"),
    ("cargo insta a", "validator.regenerated"),
    ("cargo insta r", "validator.regenerated"),
    ("dotnet test --filter 'FullyQualifiedName~Api&Category!=Slow'", "validator.narrowed"),
    ("dotnet test --filter 'Name~A|Trait!=Slow'", "validator.narrowed"),
    ("dotnet test --filter 'Category!=Slow&Name!=Token'", "validator.negative-selection"),
    ("dotnet test --list-tests", "validator.collect-only"),
    ("phpunit --list-tests", "validator.collect-only"),
    ("bazel test //... --allow_no_tests", "validator.pass-with-no-tests"),
    ("make MAKEFLAGS=-i test", "validator.ignore-failures"),
    ("MAKEFLAGS='-i -j4' make test", "validator.ignore-failures"),
    ("ninja -n", "validator.no-run"),
    ("make -q test", "validator.no-run"),
    ("mvn test -Dmaven.test.skip", "validator.no-run"),
    ("mvn test -Dmaven.test.skip=true", "validator.no-run"),
    ("mvn test -D maven.test.skip=true", "validator.no-run"),
    ("mvn test -Dmaven.test.failure.ignore", "validator.ignore-failures"),
    ("mvn test -Dtest='TokenTest,!SlowTest'", "validator.negative-selection"),
    ("flake8 --exit-zero=true", "validator.ignore-failures"),
    ("pylint --fail-under=0.0 src", "validator.ignore-failures"),
    ("pylint --fail-under=-1 src", "validator.ignore-failures"),
    ("phpcs --runtime-set ignore_errors_on_exit 1", "validator.ignore-failures"),
    ("cargo test -- --skip token", "validator.negative-selection"),
    ("cargo test token -- --skip slow", "validator.negative-selection"),
    ("go test -skip TestToken ./...", "validator.negative-selection"),
    ("go test -skip=TestToken ./...", "validator.negative-selection"),
    ("go test -exec /bin/true ./...", "validator.ignore-failures"),
    ("go test -exec='echo x' ./...", "validator.ignore-failures"),
    ("cargo nextest run -E 'not test(slow)'", "validator.negative-selection"),
    ("cargo nextest run --filterset 'all() - test(slow)'", "validator.negative-selection"),
    ("cargo nextest run --no-tests=pass", "validator.pass-with-no-tests"),
    ("npx jest --testPathIgnorePatterns api", "validator.negative-selection"),
    ("npm test -- --testPathIgnorePatterns=api", "validator.negative-selection"),
    ("vitest run --exclude 'src/slow/**'", "validator.negative-selection"),
    ("mocha -g parser --invert", "validator.negative-selection"),
    ("npx ava --match '!slow'", "validator.negative-selection"),
    ("node --test --test-skip-pattern=slow", "validator.negative-selection"),
    ("node --test --test-name-pattern='^(?!slow)'", "validator.negative-selection"),
    ("node --test --test-update-snapshots", "validator.regenerated"),
    ("npx jest --testFailureExitCode=0", "validator.ignore-failures"),
    ("npx jest --testFailureExitCode 0", "validator.ignore-failures"),
    ("npx playwright test --grep-invert @slow", "validator.negative-selection"),
    ("mvn test -Dtest='!TokenTest'", "validator.negative-selection"),
    ("dotnet test --filter 'FullyQualifiedName!=X.Token'", "validator.negative-selection"),
    ("rspec --tag ~slow", "validator.narrowed"),
    ("phpunit --exclude-group slow", "validator.narrowed"),
    ("mix test --exclude slow", "validator.narrowed"),
    ("swift test --skip Slow", "validator.negative-selection"),
    ("ctest -E slow", "validator.negative-selection"),
    ("ctest -LE slow", "validator.narrowed"),
    ("bazel test //... --test_tag_filters=-slow", "validator.narrowed"),
    ("bazel test //... --test_tag_filters=unit,-slow", "validator.narrowed"),
    ("flutter test --exclude-tags slow", "validator.narrowed"),
    ("pytest --co -q", "validator.collect-only"),
    ("pytest --collect-only", "validator.collect-only"),
    ("pytest --setup-plan", "validator.collect-only"),
    ("pytest --fixtures-per-test", "validator.collect-only"),
    ("npx jest --listTests", "validator.collect-only"),
    ("vitest list", "validator.collect-only"),
    ("npx playwright test --list", "validator.collect-only"),
    ("go test -list . ./...", "validator.collect-only"),
    ("cargo test -- --list", "validator.collect-only"),
    ("rspec --dry-run", "validator.collect-only"),
    ("ctest -N", "validator.collect-only"),
    ("npm test -- --passWithNoTests", "validator.pass-with-no-tests"),
    ("npx jest --passWithNoTests", "validator.pass-with-no-tests"),
    ("vitest run --passWithNoTests", "validator.pass-with-no-tests"),
    ("npx playwright test --pass-with-no-tests", "validator.pass-with-no-tests"),
    ("pytest --suppress-no-test-exit-code", "validator.pass-with-no-tests"),
    ("yarn test --passWithNoTests", "validator.pass-with-no-tests"),
    ("npm test --if-present", "validator.pass-with-no-tests"),
    ("npm run test --if-present", "validator.pass-with-no-tests"),
    ("tox --skip-missing-interpreters", "validator.pass-with-no-tests"),
    ("tox -e py27 --skip-missing-interpreters=true", "validator.pass-with-no-tests"),
    (
        "mvn test -Dtest=Token -Dsurefire.failIfNoSpecifiedTests=false",
        "validator.pass-with-no-tests",
    ),
    ("ruff check --exit-zero .", "validator.ignore-failures"),
    ("ruff --exit-zero", "validator.ignore-failures"),
    ("flake8 --exit-zero src", "validator.ignore-failures"),
    ("pylint --exit-zero src", "validator.ignore-failures"),
    ("pylint --fail-under=0 src", "validator.ignore-failures"),
    ("pylint --fail-under 0 src", "validator.ignore-failures"),
    ("bandit -r src --exit-zero", "validator.ignore-failures"),
    ("golangci-lint run --issues-exit-code=0", "validator.ignore-failures"),
    ("golangci-lint run --issues-exit-code 0 ./...", "validator.ignore-failures"),
    ("hadolint --no-fail Dockerfile", "validator.ignore-failures"),
    ("phpcs --runtime-set ignore_errors_on_exit 1 src", "validator.ignore-failures"),
    ("pytest --suppress-tests-failed-exit-code", "validator.ignore-failures"),
    ("python -m pytest --suppress-tests-failed-exit-code tests/", "validator.ignore-failures"),
    ("npx jest -u", "validator.regenerated"),
    ("npx jest --updateSnapshot", "validator.regenerated"),
    ("jest --ci=false -u src", "validator.regenerated"),
    ("npm test -- -u", "validator.regenerated"),
    ("yarn test -u", "validator.regenerated"),
    ("npx vitest run -u", "validator.regenerated"),
    ("npx vitest run --update", "validator.regenerated"),
    ("npx playwright test --update-snapshots", "validator.regenerated"),
    ("npx playwright test --update-snapshots=all", "validator.regenerated"),
    ("pytest --snapshot-update", "validator.regenerated"),
    ("pytest --force-regen tests/", "validator.regenerated"),
    ("pytest --regen-all", "validator.regenerated"),
    ("pytest --inline-snapshot=fix", "validator.regenerated"),
    ("pytest --inline-snapshot=create,fix", "validator.regenerated"),
    ("pytest --regtest-reset", "validator.regenerated"),
    ("PYTEST_ADDOPTS=--snapshot-update pytest", "validator.regenerated"),
    ("cargo insta accept", "validator.regenerated"),
    ("cargo insta review", "validator.regenerated"),
    ("cargo insta test --accept", "validator.regenerated"),
    ("cargo insta test --review", "validator.regenerated"),
    ("cargo test -- --bless", "validator.regenerated"),
    ("go test ./pkg -update", "validator.regenerated"),
    ("go test ./... -args -update-golden", "validator.regenerated"),
    ("go test -run TestRender ./render -update", "validator.regenerated"),
    ("UPDATE_GOLDEN=1 go test ./...", "validator.regenerated"),
    ("UPDATE_SNAPSHOTS=true npm test", "validator.regenerated"),
    ("SNAPSHOT_UPDATE=1 pytest", "validator.regenerated"),
    ("INSTA_UPDATE=always cargo test", "validator.regenerated"),
    ("INSTA_FORCE_PASS=1 cargo test", "validator.regenerated"),
    ("UPDATE_EXPECT=1 cargo test", "validator.regenerated"),
    ("TRYBUILD=overwrite cargo test", "validator.regenerated"),
    ("SNAPSHOT_TESTING_RECORD=all swift test", "validator.regenerated"),
    ("REGENERATE_FIXTURES=yes make test", "validator.regenerated"),
    ("UPDATE_GOLDEN=$X go test ./...", "validator.regenerated"),
    ("make -i test", "validator.ignore-failures"),
    ("make --ignore-errors check", "validator.ignore-failures"),
    ("make test -i", "validator.ignore-failures"),
    ("make -ik test", "validator.ignore-failures"),
    ("MAKEFLAGS=-i make test", "validator.ignore-failures"),
    ("mvn test -Dmaven.test.failure.ignore=true", "validator.ignore-failures"),
    ("mvn test --fail-never", "validator.ignore-failures"),
    ("make -n test", "validator.no-run"),
    ("make --dry-run", "validator.no-run"),
    ("make -t all", "validator.no-run"),
    ("cargo test --no-run", "validator.no-run"),
    ("go test -c ./pkg", "validator.no-run"),
    ("bash -n run_tests.sh", "validator.no-run"),  # checks the script's syntax only
    ("sh -o noexec ./scripts/test.sh", "validator.no-run"),
    ("mvn test -DskipTests", "validator.no-run"),
    ("./gradlew test -x test", "validator.no-run"),
    ("./gradlew build --dry-run", "validator.no-run"),
]


@pytest.mark.parametrize(("cmd", "rule_id"), MASKED)
def test_a_validator_told_not_to_look_is_masked(cmd: str, rule_id: str, classify) -> None:
    match = classify(cmd)
    assert match is not None and match.rule == rule_id and match.masked_by, match


def test_pytest_with_run_time_arguments_is_slow(inv) -> None:
    match = rules.classify_validator(inv("pytest", extra_args=True))
    assert match is not None and match.tier == "slow"


def test_masking_keeps_the_tier_of_the_run(classify) -> None:
    assert classify("pytest -k 'not slow'").tier == "slow"  # type: ignore[union-attr]
    assert classify("pytest -m 'not slow'").tier == "slow"  # type: ignore[union-attr]
    assert classify("ctest -LE slow").tier == "slow"  # type: ignore[union-attr]
    assert classify("pytest -k token -m 'not slow'").tier == "fast"  # type: ignore[union-attr]
    assert classify("pytest -m 'not slow' -k token").tier == "fast"  # type: ignore[union-attr]
    assert classify('pytest -k "$X"').tier == "slow"  # type: ignore[union-attr]
    assert classify("pytest tests/test_a.py --deselect tests/test_a.py::t").tier == "fast"  # type: ignore[union-attr]


def test_ignore_of_a_non_test_path_is_not_masking(classify) -> None:
    match = classify("pytest --ignore=build --ignore node_modules")
    assert match is not None and match.masked_by is None


def test_masked_by_says_what_was_left_out(classify) -> None:
    match = classify("pytest -k 'not test_token'")
    assert match is not None and match.masked_by is not None and "not test_token" in match.masked_by


def test_match_carries_the_command_text_and_tool(classify) -> None:
    match = classify("python3 -m pytest -q")
    assert match == ValidatorMatch("python3 -m pytest -q", "slow", "pytest")


@pytest.mark.parametrize(
    ("cmd", "declared"),
    [
        ("./scripts/check", ("./scripts/check",)),
        ("scripts/check --fast", ("./scripts/check",)),
        ("make ci", ("make ci",)),
        ("pytest tests/test_api.py", ("pytest tests/test_api.py",)),
        ("bin/verify", ("CI=1 bin/verify",)),
        ("bin/ship", ("CI=1 bin/ship",)),
        ("scripts/ship", ("./scripts/ship",)),
        ("./scripts/ship", ("scripts/ship",)),
        ("bin/ship $TARGET", ("bin/ship",)),
    ],
)
def test_declared_validators_are_slow(cmd: str, declared: tuple[str, ...], classify) -> None:
    match = classify(cmd, declared)
    assert match is not None and match.tier == "slow"


def test_declared_validator_keeps_runner_masking(classify) -> None:
    match = classify("pytest -k 'not x'", ("pytest",))
    assert (
        match is not None and match.tier == "slow" and match.rule == "validator.negative-selection"
    )


def test_declared_prefix_must_match_whole_words(classify) -> None:
    assert classify("scripts/checker", ("scripts/check",)) is None
    assert classify("ls", ("",)) is None


def test_an_unknown_command_word_or_an_unparsable_declaration_declares_nothing(classify) -> None:
    assert classify("$X ship", ("'' ship",)) is None
    assert classify("make deploy", ("make 'deploy",)) is None


def test_a_project_script_run_by_hatch_pdm_or_rye_is_judged_by_its_name(inv) -> None:
    """The walker hands `hatch run test` over as `test` run via `hatch run`: the project's
    script named test, not the shell's test builtin."""

    def classify(cmd: str, via: tuple[str, ...]) -> ValidatorMatch | None:
        return rules.classify_validator(inv(cmd, via=via))

    assert classify("test", ("hatch run",)) == ValidatorMatch("test", "slow", "hatch run test")
    assert classify("lint -x", ("env", "pdm run")) == ValidatorMatch(
        "lint -x", "fast", "pdm run lint"
    )
    assert classify("dev", ("rye run",)) is None
    assert classify("test", ("poetry run",)) is None
    assert classify("test", ("hatch run", "env")) is None
    assert classify("$X", ("hatch run",)) is None


SEVERITIES = {
    "validator.negative-selection": "block",
    "validator.narrowed": "warn",
    "validator.collect-only": "warn",
    "validator.pass-with-no-tests": "block",
    "validator.ignore-failures": "block",
    "validator.no-run": "warn",
    "validator.regenerated": "block",
    "validator.exit-forged": "block",
    "validator.exit-masked": "warn",
}


def test_masking_rules_are_explained_with_their_severity() -> None:
    for rule_id, severity in SEVERITIES.items():
        info = rules.rule_info(rule_id)
        assert info is not None and info.kind == "masked-validator" and info.examples_block
        assert info.severity == severity, rule_id
    assert {i.id for i in rules.all_rules() if i.kind == "masked-validator"} == set(SEVERITIES)


@pytest.mark.parametrize(
    "info",
    [i for i in rules.all_rules() if i.kind == "masked-validator"],
    ids=lambda i: i.id,
)
def test_masking_rule_examples_mask_and_allow_as_documented(info: RuleInfo) -> None:
    """Each example through the whole check, in blocking mode, by text alone: the flagged
    ones get the rule and the rule's verdict; the allowed ones never get the rule."""
    from interlock.engine.check import evaluate

    for text in info.examples_block:
        result = evaluate(text, "/", mode="blocking", assume_dirty=True).result
        assert info.id in {f.rule for f in result.findings}, (text, result.to_json())
        assert result.verdict == info.severity, (text, result.to_json())
    for text in info.examples_allow:
        result = evaluate(text, "/", mode="blocking", assume_dirty=True).result
        assert info.id not in {f.rule for f in result.findings}, (text, result.to_json())


# --- the shared corpus: every case decided by one invocation ---

_OPERATORS = re.compile(r"[|;&(){}<]|\$\(|`|^!|\b(bash|sh|eval)\b")
_WRAPPERS = {"sudo": 0, "command": 0, "nohup": 0, "env": 0, "timeout": 1}


def _single_invocation(cmd: str) -> str | None:
    """The effective command when `cmd` is one simple command behind plain wrappers."""
    if _OPERATORS.search(cmd.replace("\\n", "")):
        return None
    words = cmd.split(" ")
    while words and words[0] in _WRAPPERS:
        words = words[_WRAPPERS[words[0]] + 1 :]
    return " ".join(words)


def _corpus_all(corpus: Path) -> list[dict[str, Any]]:
    commands = corpus / "commands.jsonl"
    if not commands.exists():
        return []
    return [json.loads(line) for line in commands.read_text().splitlines() if line.strip()]


def _corpus_cases(corpus: Path) -> list[tuple[str, str, list[str]]]:
    cases = _corpus_all(corpus)
    single = [(c["cmd"], _single_invocation(c["cmd"]), c["expect"]) for c in cases]
    return [(cmd, effective, expect) for cmd, effective, expect in single if effective]


@pytest.fixture(scope="session")
def verdict_kinds(inv: Callable[..., Invocation]) -> Callable[[str], list[str]]:
    def verdict_kinds(effective: str) -> list[str]:
        invocation = inv(effective)
        # judged by text alone, as `--assume-dirty` does: literal temp-dir targets are free,
        # and a bare lease is left to the tree
        findings = rules.check_invocation(invocation)
        kinds = {
            f.kind
            for f in findings
            if not (f.targets and f.targets.by_tree_only)
        }
        match = rules.classify_validator(invocation)
        found: list[str] = sorted(k for k in ("discard", "self-disable") if k in kinds)
        if match is not None and match.masked_by is not None:
            found.append("masked")
        if not found:
            found = [match.tier] if match is not None else ["safe"]
        return sorted(found)

    return verdict_kinds


@pytest.mark.corpus_cases(("cmd", "effective", "expect"), _corpus_cases, ids=lambda v: str(v)[:60])
def test_corpus_case_decided_by_one_invocation(
    cmd: str, effective: str, expect: list[str], verdict_kinds
) -> None:
    assert verdict_kinds(effective) == sorted(expect), (cmd, effective)


def test_corpus_covers_most_cases_by_single_invocations(corpus_dir: Path) -> None:
    assert len(_corpus_cases(corpus_dir)) >= 140 or not (corpus_dir / "commands.jsonl").exists()


def _through_walker(cmd: str) -> tuple[set[str], list[ValidatorMatch]]:
    walk = pytest.importorskip("interlock.engine.walk")
    invocations = walk.walk(parse(cmd))
    kinds: set[str] = {
        f.kind
        for i in invocations
        for f in rules.check_invocation(i)
        # text alone: literal temp dirs are free, a bare lease is left to the tree, and a write
        # that may create its file is fine
        if not (f.targets and f.targets.by_tree_only)
    }
    matches = [m for i in invocations if (m := rules.classify_validator(i)) is not None]
    return kinds, matches


def _corpus_cases_for_the_rules(corpus: Path) -> list[tuple[str, list[str]]]:
    return [(c["cmd"], c["expect"]) for c in _corpus_all(corpus) if c["expect"] != ["masked"]]


@pytest.mark.corpus_cases(("cmd", "expect"), _corpus_cases_for_the_rules, ids=lambda v: str(v)[:60])
def test_corpus_case_through_the_walker(cmd: str, expect: list[str]) -> None:
    """Every case whose verdict the rules decide (exit-status masking is the engine's)."""
    kinds, matches = _through_walker(cmd)
    assert ("discard" in kinds) == ("discard" in expect), (cmd, kinds)
    assert ("self-disable" in kinds) == ("self-disable" in expect), (cmd, kinds)
    if expect == ["safe"]:
        assert matches == [], matches
    for tier in ("slow", "fast"):
        if expect == [tier]:
            assert tier in {m.tier for m in matches}, matches
            assert all(m.masked_by is None for m in matches), matches
