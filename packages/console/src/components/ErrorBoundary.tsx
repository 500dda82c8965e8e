import { Component, type ErrorInfo, type ReactNode } from 'react';
import { ErrorBanner } from './Feedback';

interface Props {
  children: ReactNode;
  /** What a person can do about it; the default offers a reload. */
  action?: ReactNode;
}

/**
 * A fault while rendering (a bug, or data the console did not expect) shows its message where the content was,
 * instead of React unmounting everything and leaving a blank page. Keyed by route in the shell, so moving to
 * another page tries again.
 */
export class ErrorBoundary extends Component<Props, { failed: boolean; error: unknown }> {
  override state: { failed: boolean; error: unknown } = { failed: false, error: undefined };

  static getDerivedStateFromError(error: unknown) {
    // `failed` apart from `error`: even `throw undefined` is a failure.
    return { failed: true, error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('the console failed to render this page', error, info.componentStack);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <section className="render-error" data-testid="render-error">
        <h2>Something went wrong showing this page</h2>
        <ErrorBanner error={this.state.error ?? new Error('The page failed without saying why.')} onRetry={() => location.reload()} />
        {this.props.action}
      </section>
    );
  }
}
