import type { ReactNode } from 'react';

export function Card({
  title,
  children,
  actions,
  className,
  testId,
}: {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
  className?: string;
  testId?: string;
}) {
  const id = `card-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section className={`card ${className ?? ''}`} aria-labelledby={id} data-testid={testId}>
      <header className="card-header">
        <h2 id={id}>{title}</h2>
        {actions && <div className="card-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}
